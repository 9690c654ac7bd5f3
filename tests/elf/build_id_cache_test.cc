// Where perf's build-id cache keeps a file: the paths perf record writes
// (checked against perf's own layout in the shell tests that run perf
// buildid-cache), and the cache folder from the environment.
#include "elf/build_id_cache.h"

#include <cstdlib>
#include <optional>
#include <string>

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
  const BuildId padded = BuildId::FromBytes(absl::string_view("\x0a\x1b\x2c\0\0\0\0\0", 8));
  EXPECT_THAT(BuildIdCachePaths("/c", "/m.ko", padded),
              ElementsAre("/c/.build-id/0a/1b2c0000000000/elf", "/c/.build-id/0a/1b2c0000000000",
                          "/c/.build-id/0a/1b2c/elf", "/c/.build-id/0a/1b2c"));
  const BuildId whole = BuildId::FromBytes(absl::string_view("\x0a\x1b\x2c", 3));
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

}  // namespace
}  // namespace perftk::elf
