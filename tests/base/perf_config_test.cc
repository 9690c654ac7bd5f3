#include "base/perf_config.h"

#include <cstdlib>
#include <fstream>

#include "../testing/temp_dir_test.h"
#include "gtest/gtest.h"

namespace perftk::base {
namespace {

TEST(FindPerfConfigValueTest, ReadsTheValueOfTheSection) {
  EXPECT_EQ(FindPerfConfigValue("[buildid]\n\tdir = /srv/cache\n", "buildid", "dir"), "/srv/cache");
  EXPECT_EQ(FindPerfConfigValue("[BuildId]\nDIR=/a\n", "buildid", "dir"), "/a");  // any case
}

TEST(FindPerfConfigValueTest, QuotesCommentsAndTheLastValue) {
  EXPECT_EQ(FindPerfConfigValue("[buildid]\n dir = \"/with space\" ; why\n", "buildid", "dir"),
            "/with space");
  EXPECT_EQ(FindPerfConfigValue("[buildid]\n dir = /a # old\n", "buildid", "dir"), "/a");
  EXPECT_EQ(FindPerfConfigValue("[buildid]\ndir = \"/a#b\"\n", "buildid", "dir"), "/a#b");
  EXPECT_EQ(FindPerfConfigValue("[buildid]\ndir=/a\n[buildid]\ndir=/b\n", "buildid", "dir"), "/b");
}

TEST(FindPerfConfigValueTest, NothingOutsideTheSection) {
  EXPECT_EQ(FindPerfConfigValue("dir = /a\n[report]\ndir = /b\n", "buildid", "dir"), std::nullopt);
  EXPECT_EQ(FindPerfConfigValue("[buildid \"x\"]\ndir = /a\n", "buildid", "dir"), std::nullopt);
  EXPECT_EQ(FindPerfConfigValue("# [buildid]\n; dir = /a\n", "buildid", "dir"), std::nullopt);
  EXPECT_EQ(FindPerfConfigValue("", "buildid", "dir"), std::nullopt);
}

class PerfConfigValueTest : public testing::TempDirTest {};

TEST_F(PerfConfigValueTest, PerfConfigNamesTheOnlyFile) {
  std::ofstream(Path("config")) << "[buildid]\ndir = /from/perf_config\n";
  setenv("PERF_CONFIG", Path("config").c_str(), 1);
  EXPECT_EQ(PerfConfigValue("buildid", "dir"), "/from/perf_config");
  setenv("PERF_CONFIG", "", 1);  // empty: no file at all
  EXPECT_EQ(PerfConfigValue("buildid", "dir"), std::nullopt);
  unsetenv("PERF_CONFIG");
}

TEST_F(PerfConfigValueTest, HomesPerfconfigWhenPerfConfigIsUnset) {
  const char* old_home = std::getenv("HOME");
  const std::string saved = old_home == nullptr ? "" : old_home;
  unsetenv("PERF_CONFIG");
  setenv("HOME", Path("").c_str(), 1);
  std::ofstream(Path(".perfconfig")) << "[buildid]\n  dir = /from/home\n";
  EXPECT_EQ(PerfConfigValue("buildid", "dir"), "/from/home");
  setenv("HOME", saved.c_str(), 1);
}

}  // namespace
}  // namespace perftk::base
