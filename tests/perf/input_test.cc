// A mapped input gives its pages back behind the reader, and the views of
// them stay right.
#include "perf/input.h"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "../testing/resident_memory.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace perftk {
namespace {

TEST(InputTest, ReleasedPagesLeaveTheMappingAndReadBackTheFile) {
  const std::string path = absl::StrCat(::testing::TempDir(), "/input_release_test.data");
  constexpr size_t kSize = 3 * perf::Input::kReleasedAgain;
  std::vector<char> contents(kSize);
  for (size_t i = 0; i < kSize; ++i) contents[i] = static_cast<char>(i * 7 + i / 4096);
  { std::ofstream(path, std::ios::binary).write(contents.data(), kSize); }
  absl::StatusOr<std::unique_ptr<perf::Input>> input = perf::Input::Open(path);
  ASSERT_TRUE(input.ok()) << input.status();
  const base::Bytes all = (*input)->mapped();
  ASSERT_EQ(all.size(), kSize);
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  auto touch = [&](size_t begin, size_t end) {
    for (size_t at = begin; at < end; at += page) {
      (void)*static_cast<const volatile std::byte*>(all.data() + at);
    }
  };
  constexpr size_t kThirdKb = perf::Input::kReleasedAgain / 1024;
  touch(0, kSize);
  EXPECT_EQ(testing::ResidentKbOfMapping(all.data()), 3 * kThirdKb);
  // Everything before the last third goes.
  (*input)->ReleaseBefore(2 * perf::Input::kReleasedAgain);
  EXPECT_EQ(testing::ResidentKbOfMapping(all.data()), kThirdKb);
  // A view behind the reader brings its pages back...
  touch(perf::Input::kReleasedAgain, perf::Input::kReleasedAgain + (1 << 20));
  // (fault-around may map a few pages more than were read)
  EXPECT_GE(testing::ResidentKbOfMapping(all.data()), kThirdKb + 1024);
  EXPECT_LE(testing::ResidentKbOfMapping(all.data()), kThirdKb + 4096);
  // ...and the next release takes them again with what it releases anew.
  (*input)->ReleaseBefore(kSize);
  EXPECT_EQ(testing::ResidentKbOfMapping(all.data()), 0u);
  EXPECT_TRUE(
      std::equal(all.begin(), all.end(), reinterpret_cast<const std::byte*>(contents.data())))
      << "a released page reads back the file's bytes";
  std::remove(path.c_str());
}

}  // namespace
}  // namespace perftk
