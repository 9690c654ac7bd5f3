// BinaryImages finds a binary whose build id the recording stores padded:
// a kernel module's 8-byte id as simpleperf and perf record it (20 bytes,
// zeros after the 8) matches the module file's own 8-byte note. It finds a
// binary, and the vDSO, in perf's build-id cache by the recorded id.
#include "cs_etm/binary_images.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
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
    return machine::Dso{dir_ + "/m.so", base::BuildId::FromBytes(id), {}, false};
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

// The cache as perf record lays it out: .build-id/xx/yyyy links to the
// folder that holds the copy (`elf`, or `vdso` for the vDSO).
class BuildIdCacheTest : public BinaryImagesTest {
 protected:
  void SetUp() override {
    BinaryImagesTest::SetUp();
    cache_ = dir_ + "/cache";
    const char* old = std::getenv("PERF_BUILDID_DIR");
    if (old) old_cache_ = old;
    setenv("PERF_BUILDID_DIR", cache_.c_str(), 1);
  }
  void TearDown() override {
    if (old_cache_) {
      setenv("PERF_BUILDID_DIR", old_cache_->c_str(), 1);
    } else {
      unsetenv("PERF_BUILDID_DIR");
    }
    BinaryImagesTest::TearDown();
  }
  // Keeps m.so in the cache under `name` ("elf" or "vdso") in folder `folder`.
  void Keep(const std::string& folder, const std::string& name) {
    std::filesystem::create_directories(cache_ + "/" + folder);
    std::filesystem::copy_file(dir_ + "/m.so", cache_ + "/" + folder + "/" + name);
    std::filesystem::create_directories(cache_ + "/.build-id/a5");
    std::filesystem::create_symlink("../../" + folder, cache_ + "/.build-id/a5/35d7222f9f01d1");
  }

  std::string cache_;
  std::optional<std::string> old_cache_;
};

TEST_F(BuildIdCacheTest, AMovedBinaryIsFoundByIdInTheCache) {
  Keep("moved/m.so/a535d7222f9f01d1", "elf");
  std::filesystem::rename(dir_ + "/m.so", dir_ + "/elsewhere.so");
  BinaryImages images("", {});
  const Image* image = images.Find(ModuleWithRecordedId(kShortId + std::string(12, '\0')));
  ASSERT_NE(image, nullptr);
  EXPECT_EQ(image->path, cache_ + "/.build-id/a5/35d7222f9f01d1/elf");
  EXPECT_THAT(images.TakeWarnings(), IsEmpty());
}

TEST_F(BuildIdCacheTest, TheVdsoIsReadFromTheCache) {
  Keep("[vdso]/a535d7222f9f01d1", "vdso");
  BinaryImages images("", {});
  machine::Dso vdso{"[vdso]", base::BuildId::FromBytes(kShortId), {}, false};
  const Image* image = images.Find(vdso);
  ASSERT_NE(image, nullptr);
  EXPECT_EQ(image->path, cache_ + "/.build-id/a5/35d7222f9f01d1/vdso");
  EXPECT_THAT(images.TakeWarnings(), IsEmpty());
}

TEST_F(BuildIdCacheTest, AVdsoOfAnotherIdOrNoneIsNamedInAWarning) {
  Keep("[vdso]/a535d7222f9f01d1", "vdso");
  BinaryImages images("", {});
  machine::Dso other{"[vdso]", *base::BuildId::FromHex("0102030405060708"), {}, false};
  EXPECT_EQ(images.Find(other), nullptr);
  machine::Dso no_id{"[vdso]", base::BuildId(), {}, false};
  EXPECT_EQ(images.Find(no_id), nullptr);
  std::string warnings = testing::PrintToString(images.TakeWarnings());
  EXPECT_THAT(warnings, HasSubstr("cache as " + cache_ + "/.build-id/01/02030405060708/vdso"));
  EXPECT_THAT(warnings, HasSubstr("no build id recorded"));
}

TEST_F(BuildIdCacheTest, ACachedFileOfAnotherIdIsNotTaken) {
  // The link names m.so's id but the file there is another binary.
  std::ofstream(dir_ + "/n.c") << "int g(void) { return 2; }\n";
  std::string cc = "cc -shared -nostdlib -Wl,--build-id=0x0102030405060708 -o " + dir_ + "/n.so " +
                   dir_ + "/n.c";
  ASSERT_EQ(std::system(cc.c_str()), 0) << cc;
  std::filesystem::create_directories(cache_ + "/x");
  std::filesystem::copy_file(dir_ + "/n.so", cache_ + "/x/elf");
  std::filesystem::create_directories(cache_ + "/.build-id/a5");
  std::filesystem::create_symlink("../../x", cache_ + "/.build-id/a5/35d7222f9f01d1");
  std::filesystem::remove(dir_ + "/m.so");
  BinaryImages images("", {});
  EXPECT_EQ(images.Find(ModuleWithRecordedId(kShortId)), nullptr);
  EXPECT_THAT(testing::PrintToString(images.TakeWarnings()), HasSubstr("0102030405060708"));
}

}  // namespace
}  // namespace perftk::cs_etm
