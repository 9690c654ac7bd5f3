// BinaryImages finds a binary whose build id the recording stores padded:
// a kernel module's 8-byte id as simpleperf and perf record it (20 bytes,
// zeros after the 8) matches the module file's own 8-byte note.
#include "cs_etm/binary_images.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace perftk::cs_etm {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;

class BinaryImagesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "/binary_images_test." + std::to_string(getpid());
    std::filesystem::create_directories(dir_);
    std::ofstream(dir_ + "/m.c") << "int f(void) { return 1; }\n";
    // An 8-byte build id, as a kernel module built with an xxhash id has.
    std::string cc = "cc -shared -nostdlib -Wl,--build-id=0xa535d7222f9f01d1 -o " + dir_ +
                     "/m.so " + dir_ + "/m.c";
    ASSERT_EQ(std::system(cc.c_str()), 0) << cc;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  machine::Dso ModuleWithRecordedId(const std::string& id) {
    return machine::Dso{dir_ + "/m.so", id, {}, false};
  }

  std::string dir_;
};

const std::string kShortId("\xa5\x35\xd7\x22\x2f\x9f\x01\xd1", 8);

TEST_F(BinaryImagesTest, AShortIdRecordedPaddedMatchesTheFilesShortNote) {
  for (size_t padded_to : {8u, 16u, 20u}) {
    SCOPED_TRACE(padded_to);
    BinaryImages images("", {});
    machine::Dso dso = ModuleWithRecordedId(kShortId + std::string(padded_to - 8, '\0'));
    EXPECT_NE(images.Find(dso), nullptr);
    EXPECT_THAT(images.TakeWarnings(), IsEmpty());
  }
}

TEST_F(BinaryImagesTest, AnotherIdIsStillRefused) {
  BinaryImages images("", {});
  machine::Dso dso = ModuleWithRecordedId(std::string("\xa5\x35\xd7\x22\x2f\x9f\x01\xd2", 8) +
                                          std::string(12, '\0'));
  EXPECT_EQ(images.Find(dso), nullptr);
  EXPECT_THAT(testing::PrintToString(images.TakeWarnings()), HasSubstr("a535d7222f9f01d1"));
}

}  // namespace
}  // namespace perftk::cs_etm
