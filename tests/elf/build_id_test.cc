// Build ids of ELF files and notes (base/build_id_test.cc tests the value
// and perf's comparison rule).
#include "elf/build_id.h"

#include <memory>
#include <string>

#include "gtest/gtest.h"

namespace perftk::elf {
namespace {

// This test program: linked with a GNU build id, as the toolchain does by
// default.
std::unique_ptr<ElfFile> Self() {
  absl::StatusOr<std::unique_ptr<ElfFile>> file = ElfFile::Open("/proc/self/exe");
  EXPECT_TRUE(file.ok()) << file.status();
  return file.ok() ? *std::move(file) : nullptr;
}

TEST(HasBuildId, MatchesAsPerfCompares) {
  std::unique_ptr<ElfFile> self = Self();
  ASSERT_NE(self, nullptr);
  std::optional<base::BuildId> id = self->BuildId();
  if (!id) GTEST_SKIP() << "linked without a build id";
  EXPECT_TRUE(HasBuildId(*self, *id));
  EXPECT_TRUE(HasBuildId(*self, id->PaddedTo20()));
  std::string other(id->bytes_view());
  other[0] = static_cast<char>(other[0] ^ 1);
  EXPECT_FALSE(HasBuildId(*self, base::BuildId::FromBytes(other)));
  EXPECT_FALSE(HasBuildId(*self, base::BuildId())) << "an empty id matches nothing";
}

}  // namespace
}  // namespace perftk::elf
