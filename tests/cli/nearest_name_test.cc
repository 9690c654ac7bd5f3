#include "cli/nearest_name.h"

#include "gtest/gtest.h"

namespace perftk::cli {
namespace {

const std::vector<std::string> kSubcommands = {"aslr",           "jit",    "cs-etm-decode",
                                               "merge-profiles", "unwind", "uprobe-offset",
                                               "dump",           "copy",   "help"};

TEST(NameDistanceTest, CountsEachKindOfEditOnce) {
  EXPECT_EQ(NameDistance("format", "format"), 0u);
  EXPECT_EQ(NameDistance("fromat", "format"), 1u);   // a swap
  EXPECT_EQ(NameDistance("forma", "format"), 1u);    // a deletion
  EXPECT_EQ(NameDistance("formats", "format"), 1u);  // an insertion
  EXPECT_EQ(NameDistance("furmat", "format"), 1u);   // a substitution
  EXPECT_EQ(NameDistance("", "jit"), 3u);
  EXPECT_EQ(NameDistance("abc", "xyz"), 3u);
}

TEST(NameDistanceTest, IgnoresCase) { EXPECT_EQ(NameDistance("ASLR", "aslr"), 0u); }

TEST(NearestNameTest, SuggestsWhatWasMeant) {
  EXPECT_EQ(NearestName("ASLR", kSubcommands), "aslr");
  EXPECT_EQ(NearestName("cs-etm-decod", kSubcommands), "cs-etm-decode");
  EXPECT_EQ(NearestName("cs_etm_decode", kSubcommands), "cs-etm-decode");
  EXPECT_EQ(NearestName("uprobe", kSubcommands), "uprobe-offset");  // the one it begins
  EXPECT_EQ(NearestName("CS-ETM", kSubcommands), "cs-etm-decode");
  EXPECT_EQ(NearestName("jti", kSubcommands), "jit");
  EXPECT_EQ(NearestName("--fromat", {"--format", "--output", "--input"}), "--format");
}

TEST(NearestNameTest, NothingWhenNoneIsNear) {
  EXPECT_EQ(NearestName("record", kSubcommands), "");
  EXPECT_EQ(NearestName("xy", kSubcommands), "");
  EXPECT_EQ(NearestName("anything", {}), "");
  EXPECT_EQ(NearestName("--in", {"--input", "--inline"}), "");  // begins both
}

TEST(NearestNameTest, TheFirstOfEquallyNearCandidatesWins) {
  EXPECT_EQ(NearestName("dopy", {"dump", "copy", "dope"}), "copy");
}

}  // namespace
}  // namespace perftk::cli
