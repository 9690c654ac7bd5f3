// Where perf's build-id cache keeps a file: the paths perf record writes
// (checked against perf's own layout in the shell tests that run perf
// buildid-cache), the cache folder from the environment, and a file added
// as perf adds it, kept only when the run keeps it.
#include "elf/build_id_cache.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "../testing/temp_dir_test.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace perftk::elf {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(BuildIdCachePaths, AFileIsTheElfInTheIdsFolderThenTheOldLink) {
  EXPECT_THAT(BuildIdCachePaths("/c", "/usr/lib/libc.so.6", "0a1b2c"),
              ElementsAre("/c/.build-id/0a/1b2c/elf", "/c/.build-id/0a/1b2c"));
}

TEST(BuildIdCachePaths, TheVdsoIsKeptAsVdsoAndUnderItsOwnName) {
  EXPECT_THAT(
      BuildIdCachePaths("/c", "[vdso]", "0a1b2c"),
      ElementsAre("/c/.build-id/0a/1b2c/vdso", "/c/[vdso]/0a1b2c/vdso", "/c/.build-id/0a/1b2c"));
}

TEST(BuildIdCachePaths, APaddedShortIdIsAlsoLookedUpUnpadded) {
  const base::BuildId padded =
      base::BuildId::FromBytes(absl::string_view("\x0a\x1b\x2c\0\0\0\0\0", 8));
  EXPECT_THAT(BuildIdCachePaths("/c", "/m.ko", padded),
              ElementsAre("/c/.build-id/0a/1b2c0000000000/elf", "/c/.build-id/0a/1b2c0000000000",
                          "/c/.build-id/0a/1b2c/elf", "/c/.build-id/0a/1b2c"));
  const base::BuildId whole = base::BuildId::FromBytes(absl::string_view("\x0a\x1b\x2c", 3));
  EXPECT_THAT(BuildIdCachePaths("/c", "/m.ko", whole),
              ElementsAre("/c/.build-id/0a/1b2c/elf", "/c/.build-id/0a/1b2c"));
}

TEST(BuildIdCachePaths, NoCacheOrNoIdGivesNothing) {
  EXPECT_THAT(BuildIdCachePaths("", "/bin/true", "0a1b2c"), IsEmpty());
  EXPECT_THAT(BuildIdCachePaths("/c", "/bin/true", ""), IsEmpty());
  EXPECT_THAT(BuildIdCachePaths("/c", "/bin/true", "0"), IsEmpty());
}

// Sets an environment variable for one test, restoring it after.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) {
      setenv(name, value, 1);
    } else {
      unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(BuildIdCacheDir, PerfBuildidDirFirstThenHomesDebug) {
  ScopedEnv home("HOME", "/home/u");
  {
    ScopedEnv dir("PERF_BUILDID_DIR", "/cache");
    EXPECT_EQ(BuildIdCacheDir(), "/cache");
  }
  {
    ScopedEnv empty("PERF_BUILDID_DIR", "");
    EXPECT_EQ(BuildIdCacheDir(), "/home/u/.debug");
  }
  ScopedEnv unset("PERF_BUILDID_DIR", nullptr);
  EXPECT_EQ(BuildIdCacheDir(), "/home/u/.debug");
  ScopedEnv no_home("HOME", nullptr);
  EXPECT_EQ(BuildIdCacheDir(), "");
}

TEST(BuildIdLinkPath, TheFirstByteNamesTheFolder) {
  EXPECT_EQ(BuildIdLinkPath("/c", "0a1b2c"), "/c/.build-id/0a/1b2c");
  EXPECT_EQ(BuildIdLinkPath("/c", "0"), "");
  EXPECT_EQ(BuildIdDebugPath("/usr/lib/debug", "0a1b2c"), "/usr/lib/debug/.build-id/0a/1b2c.debug");
  EXPECT_EQ(BuildIdDebugPath("/usr/lib/debug", "0a"), "");
}

class AddToBuildIdCacheTest : public testing::TempDirTest {};

TEST_F(AddToBuildIdCacheTest, PerfsLayoutKeptOnlyWhenTheRunKeepsIt) {
  const std::string file = Path("lib.so");
  std::ofstream(file) << "contents";
  const base::BuildId id = *base::BuildId::FromHex("0a1b2c3d");
  const std::string cache = Path("cache");
  std::vector<base::PendingFile> made;
  ASSERT_TRUE(AddToBuildIdCache(cache, file, id, made).ok());
  struct stat entry, original;
  ASSERT_EQ(
      stat((cache + std::filesystem::canonical(file).string() + "/0a1b2c3d/elf").c_str(), &entry),
      0);
  ASSERT_EQ(stat(file.c_str(), &original), 0);
  EXPECT_EQ(entry.st_ino, original.st_ino);  // a hard link on one file system
  char target[4096];
  const ssize_t n = readlink(BuildIdLinkPath(cache, "0a1b2c3d").c_str(), target, sizeof(target));
  ASSERT_GT(n, 0);
  // Named by the file's real path.
  const std::string real = std::filesystem::canonical(file).string();
  EXPECT_EQ(std::string(target, static_cast<size_t>(n)), "../.." + real + "/0a1b2c3d");
  // Added again: what is there is kept, nothing new is made.
  std::vector<base::PendingFile> again;
  ASSERT_TRUE(AddToBuildIdCache(cache, file, id, again).ok());
  EXPECT_THAT(again, IsEmpty());
  // The run did not keep what it made: it is gone (newest first, so each
  // folder after what is in it), the file is not.
  while (!made.empty()) made.pop_back();
  EXPECT_NE(access(cache.c_str(), F_OK), 0);
  EXPECT_EQ(access(file.c_str(), F_OK), 0);
}

TEST_F(AddToBuildIdCacheTest, ARelativePathOrNoIdIsRefused) {
  std::vector<base::PendingFile> made;
  EXPECT_FALSE(AddToBuildIdCache(Path("c"), "lib.so", *base::BuildId::FromHex("0a1b"), made).ok());
  EXPECT_FALSE(AddToBuildIdCache(Path("c"), Path("lib.so"), base::BuildId(), made).ok());
  EXPECT_THAT(made, IsEmpty());
}

}  // namespace
}  // namespace perftk::elf
