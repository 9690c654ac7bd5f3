#include <fstream>
#include <sstream>
#include <string>
#include <utility>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "profile/autofdo_text.h"
#include "profile/bolt_text.h"
#include "profile/profile.h"
#include "profile/profile_file.h"

namespace perftk::profile {
namespace {

using ::testing::HasSubstr;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

const std::string kSimpleperfText = std::string(PERFTK_ETM_DATA_DIR) + "/perf_inject.data";

absl::Status AddText(const std::string& text, Profile& into, const std::string& name = "in") {
  LineReader lines = LineReader::FromText(name, text);
  return AddProfileText(lines, into);
}

TEST(AutoFdoText, SimpleperfsTextReadsAndWritesBackTheSame) {
  const std::string text = ReadFile(kSimpleperfText);
  ASSERT_FALSE(text.empty());
  Profile profile;
  ASSERT_TRUE(AddText(text, profile).ok());
  ASSERT_EQ(profile.format(), Format::kAutoFdo);
  ASSERT_EQ(profile.binaries().size(), 1u);
  const BinaryKey& key = profile.binaries().begin()->first;
  EXPECT_EQ(key.path, "/data/local/tmp/etm_test_loop");
  EXPECT_EQ(key.build_id.ToHex(), "0c9a20bf9c009d0e4e8bbf9fad0300ae00000000");
  EXPECT_EQ(AutoFdoText(profile), text);
}

TEST(AutoFdoText, TwoCopiesSumEveryCount) {
  const std::string text = ReadFile(kSimpleperfText);
  Profile once, twice;
  ASSERT_TRUE(AddText(text, once).ok());
  ASSERT_TRUE(AddText(text, twice).ok());
  ASSERT_TRUE(AddText(text, twice).ok());
  const BinaryCounts& one = once.binaries().begin()->second;
  const BinaryCounts& two = twice.binaries().begin()->second;
  ASSERT_EQ(one.ranges.size(), two.ranges.size());
  for (const auto& [range, count] : one.ranges) EXPECT_EQ(two.ranges.at(range), 2 * count);
  for (const auto& [branch, count] : one.branches) {
    EXPECT_EQ(two.branches.at(branch).taken, 2 * count.taken);
  }
  EXPECT_THAT(AutoFdoText(twice), HasSubstr("\n106c->1074:200\n"));
  EXPECT_THAT(AutoFdoText(twice), HasSubstr("\n1080->105c:200\n"));
}

TEST(AutoFdoText, TwoBuildsOfOnePathStayApart) {
  const std::string a = "1\n10-20:5\n0\n1\n20->10:4\n// build_id: 0xaa\n// /bin/prog\n\n";
  const std::string b = "1\n10-20:7\n0\n0\n// build_id: 0xBB\n// /bin/prog\n";
  Profile profile;
  ASSERT_TRUE(AddText(a, profile).ok());
  ASSERT_TRUE(AddText(b, profile).ok());
  ASSERT_EQ(profile.binaries().size(), 2u);
  EXPECT_EQ(AutoFdoText(profile),
            "1\n10-20:5\n0\n1\n20->10:4\n// build_id: 0xaa\n// /bin/prog\n\n"
            "1\n10-20:7\n0\n0\n// build_id: 0xbb\n// /bin/prog\n\n");
}

TEST(AutoFdoText, AddressSamplesAndSeveralBinariesInOneText) {
  const std::string text =
      "1\n0-4:1\n2\n8:3\nc:4\n0\n// /a\n\n"
      "0\n0\n1\n4->0:2\n// /b\n\n";
  Profile profile;
  ASSERT_TRUE(AddText(text, profile).ok());
  ASSERT_TRUE(AddText(text, profile).ok());
  EXPECT_EQ(AutoFdoText(profile), "1\n0-4:2\n2\n8:6\nc:8\n0\n// /a\n\n0\n0\n1\n4->0:4\n// /b\n\n");
}

TEST(AutoFdoText, CountsSaturateInsteadOfWrapping) {
  const std::string big = "1\n10-20:9223372036854775000\n0\n0\n// /p\n";
  Profile profile;
  ASSERT_TRUE(AddText(big, profile).ok());
  EXPECT_EQ(profile.saturated(), 0u);
  ASSERT_TRUE(AddText(big, profile).ok());
  EXPECT_EQ(profile.saturated(), 1u);
  EXPECT_EQ(profile.binaries().begin()->second.ranges.begin()->second, kMaxCount);
  // A count beyond what perf2bolt reads saturates on reading.
  Profile huge;
  ASSERT_TRUE(AddText("1\n10-20:18446744073709551615\n0\n0\n// /p\n", huge).ok());
  EXPECT_EQ(huge.saturated(), 1u);
  EXPECT_EQ(huge.binaries().begin()->second.ranges.begin()->second, kMaxCount);
}

TEST(AutoFdoText, BadTextsNameTheLine) {
  Profile profile;
  absl::Status s = AddText("1\n10-zz:5\n0\n0\n", profile, "bad.afdo");
  EXPECT_THAT(s.message(), HasSubstr("bad.afdo: line 2: expected START-END:COUNT"));
  s = AddText("2\n10-20:5\n", profile, "short.afdo");
  EXPECT_THAT(s.message(), HasSubstr("short.afdo: line 2: the text ends after 1 of 2 lines"));
  s = AddText("1\n10-20:99999999999999999999\n0\n0\n", profile, "wrap.afdo");
  EXPECT_THAT(s.message(), HasSubstr("wrap.afdo: line 2"));
  s = AddText("hello\n", profile, "junk");
  EXPECT_THAT(s.message(), HasSubstr("junk: line 1: neither AutoFDO text"));
  EXPECT_TRUE(profile.binaries().empty());
}

TEST(AutoFdoText, BuildIdMustBeHexAndComesBeforeThePath) {
  Profile profile;
  absl::Status s = AddText("1\n10-20:5\n0\n0\n// build_id: 0x// junk\n// /p\n", profile, "id.afdo");
  EXPECT_THAT(s.message(), HasSubstr("id.afdo: line 5: build id \"// junk\" is not 1 to 20 bytes"));
  s = AddText("1\n10-20:5\n0\n0\n// build_id: 0xabc\n// /p\n", profile, "odd.afdo");
  EXPECT_THAT(s.message(), HasSubstr("odd.afdo: line 5: build id"));
  s = AddText("1\n10-20:5\n0\n0\n// /p\n// /q\n", profile, "two.afdo");
  EXPECT_THAT(s.message(), HasSubstr("two.afdo: line 6: a comment line after the binary's path"));
  s = AddText("1\n10-20:5\n0\n0\n//build_id: 0xab\n", profile, "nospace.afdo");
  EXPECT_THAT(s.message(), HasSubstr("nospace.afdo: line 5: expected \"// PATH\""));
  EXPECT_TRUE(profile.binaries().empty());
  // After the build id, a path that looks like one is the path.
  ASSERT_TRUE(AddText("1\n10-20:5\n0\n0\n// build_id: 0xAB\n// build_id: 0xcd\n", profile).ok());
  ASSERT_EQ(profile.binaries().size(), 1u);
  EXPECT_EQ(profile.binaries().begin()->first,
            (BinaryKey{"build_id: 0xcd", *base::BuildId::FromHex("ab")}));
}

const BinaryKey kLoop{"", *base::BuildId::FromHex("0c9a20bf9c009d0e4e8bbf9fad0300ae00000000")};

TEST(BoltText, BuildIdOnTheFirstAddressOnly) {
  BinaryCounts counts;
  counts.ranges[{0x1074, 0x1080}] = 100;
  counts.branches[{0x106c, 0x1074}] = {100, 0};
  EXPECT_EQ(BoltText(kLoop, counts),
            "F 0c9a20bf9c009d0e4e8bbf9fad0300ae00000000:1074 1080 100\n"
            "B 106c 1074 100 0\n");
  EXPECT_EQ(BoltText(BinaryKey{}, counts), "F 1074 1080 100\nB 106c 1074 100 0\n");
}

// A loop 0x10..0x1c whose conditional branch at 0x14 is taken to 0x40 3
// times and falls through 7 times; ETM's ranges end at 0x14 either way.
TEST(BoltText, FallThroughsOfBranchesNotTaken) {
  BinaryCounts counts;
  counts.ranges[{0x10, 0x14}] = 10;
  counts.ranges[{0x18, 0x1c}] = 7;
  counts.ranges[{0x40, 0x44}] = 3;
  counts.branches[{0x14, 0x40}] = {3, 0};
  counts.branches[{0x1c, 0x10}] = {7, 0};
  counts.branches[{0x44, 0x10}] = {2, 0};  // the third ran on, out of the trace
  AddFallThroughs(counts);
  EXPECT_EQ(BoltText(BinaryKey{}, counts),
            "F 10 14 10\nF 14 18 7\nF 18 1c 7\nF 40 44 3\nF 44 48 1\n"
            "B 14 40 3 0\nB 1c 10 7 0\nB 44 10 2 0\n");
  // Without branches every range end falls through; a fall-through that is
  // also a decoded range sums with it.
  BinaryCounts again;
  again.ranges[{0x10, 0x14}] = 1;
  again.ranges[{0x14, 0x18}] = 5;
  AddFallThroughs(again);
  EXPECT_EQ(BoltText(BinaryKey{}, again), "F 10 14 1\nF 14 18 6\nF 18 1c 5\n");
}

TEST(BoltText, ReadsBackAndSums) {
  BinaryCounts counts;
  counts.ranges[{0x1074, 0x1080}] = 100;
  counts.branches[{0x106c, 0x1074}] = {100, 3};
  const std::string text = BoltText(kLoop, counts);
  Profile profile;
  ASSERT_TRUE(AddText(text, profile).ok());
  ASSERT_TRUE(AddText(text, profile).ok());
  ASSERT_EQ(profile.format(), Format::kBolt);
  ASSERT_EQ(profile.binaries().size(), 1u);
  EXPECT_EQ(profile.binaries().begin()->first, kLoop);
  EXPECT_EQ(BoltText(kLoop, profile.binaries().begin()->second),
            "F 0c9a20bf9c009d0e4e8bbf9fad0300ae00000000:1074 1080 200\n"
            "B 106c 1074 200 6\n");
}

TEST(BoltText, AnotherBuildOrFormatOrNoBuildIdIsRefused) {
  Profile profile;
  ASSERT_TRUE(AddText("F aa:10 20 1\nB 20 10 1 0\n", profile, "a.pa").ok());
  absl::Status s = AddText("F bb:10 20 1\n", profile, "b.pa");
  EXPECT_THAT(s.message(), HasSubstr("b.pa: a BOLT profile of build id bb, but the inputs before "
                                     "it are of build id aa"));
  s = AddText("1\n10-20:5\n0\n0\n// /p\n", profile, "c.afdo");
  EXPECT_THAT(s.message(), HasSubstr("c.afdo: AutoFDO text, but the inputs before it are BOLT"));
  s = AddText("F 10 20 1\n", profile, "d.pa");
  EXPECT_THAT(s.message(), HasSubstr("d.pa: this BOLT text names no build id"));
  s = AddText("F aa:10 20 1\nB bb:20 10 1 0\n", profile, "e.pa");
  EXPECT_THAT(s.message(), HasSubstr("e.pa: line 2: build id bb, but line 1 gave aa"));
  s = AddText("F a:10 20 1\n", profile, "g.pa");
  EXPECT_THAT(s.message(), HasSubstr("g.pa: line 1"));
  s = AddText("F aa:10 20 1\nf 20 10 1\n", profile, "f.pa");
  EXPECT_THAT(s.message(), HasSubstr("f.pa: line 2: expected an F or B line"));
  EXPECT_EQ(profile.binaries().begin()->second.ranges.at({0x10, 0x20}), 1u);
}

TEST(ProfileFile, EmptyTextsAddNothing) {
  Profile profile;
  ASSERT_TRUE(AddText("", profile).ok());
  ASSERT_TRUE(AddText("\n\n", profile).ok());
  EXPECT_FALSE(profile.format().has_value());
}

TEST(Profile, KeepBinaries) {
  Profile profile;
  ASSERT_TRUE(AddText("0\n0\n0\n// /a/x\n\n0\n0\n0\n// /b/y\n", profile).ok());
  profile.KeepBinaries([](const BinaryKey& key) { return key.path == "/b/y"; });
  ASSERT_EQ(profile.binaries().size(), 1u);
  EXPECT_EQ(profile.binaries().begin()->first.path, "/b/y");
}

// A profile added by move sums as one added by copy: taken whole into an
// empty profile, count by count into one that has the binary, and refused
// (nothing taken) when of another format.
TEST(Profile, AddingByMoveSumsAsByCopy) {
  const std::string text = ReadFile(kSimpleperfText);
  Profile copied, moved, one;
  ASSERT_TRUE(AddText(text, one).ok());
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(copied.Add(one).ok());
    Profile again = one;
    ASSERT_TRUE(moved.Add(std::move(again)).ok());
  }
  EXPECT_EQ(AutoFdoText(moved), AutoFdoText(copied));
  EXPECT_THAT(AutoFdoText(moved), HasSubstr("\n106c->1074:200\n"));

  // Into a profile that has other binaries, a new one by move.
  Profile two;
  ASSERT_TRUE(AddText("0\n0\n0\n// /a/x\n", two).ok());
  Profile another = one;
  ASSERT_TRUE(two.Add(std::move(another)).ok());
  EXPECT_TRUE(another.binaries().empty());
  ASSERT_EQ(two.binaries().size(), 2u);
  EXPECT_EQ(two.binaries().at(one.binaries().begin()->first), one.binaries().begin()->second);
  // A profile added to itself doubles, by move as by copy.
  Profile self = one;
  ASSERT_TRUE(self.Add(std::move(self)).ok());
  EXPECT_EQ(AutoFdoText(self), AutoFdoText(copied));

  Profile bolt;
  ASSERT_TRUE(AddText("F aa:10 20 1\n", bolt, "a.pa").ok());
  Profile autofdo = one;
  EXPECT_FALSE(bolt.Add(std::move(autofdo)).ok());
  EXPECT_EQ(bolt.binaries().size(), 1u);
  EXPECT_EQ(bolt.format(), Format::kBolt);
  EXPECT_EQ(AutoFdoText(autofdo), AutoFdoText(one)) << "refused, yet taken";

  const BinaryKey key = one.binaries().begin()->first;
  BinaryCounts counts = one.binaries().begin()->second;
  Profile by_binary;
  by_binary.Add(key, std::move(counts));
  BinaryCounts again = one.binaries().begin()->second;
  by_binary.Add(key, std::move(again));
  EXPECT_EQ(by_binary.binaries().at(key), copied.binaries().at(key));
}

// Counts taken whole saturate as counts summed do.
TEST(Profile, CountsTakenByMoveSaturate) {
  const BinaryKey key{"/p", {}};
  BinaryCounts counts;
  counts.ranges[{0x10, 0x20}] = UINT64_MAX;
  counts.addresses[0x10] = kMaxCount;
  counts.branches[{0x20, 0x10}] = BranchCount{.taken = kMaxCount + 1, .mispredicted = 3};
  BinaryCounts copy = counts;
  Profile moved, copied;
  moved.Add(key, std::move(counts));
  copied.Add(key, copy);
  EXPECT_EQ(moved.binaries().at(key), copied.binaries().at(key));
  EXPECT_EQ(moved.binaries().at(key).ranges.at({0x10, 0x20}), kMaxCount);
  EXPECT_EQ(moved.saturated(), 2u);
  EXPECT_EQ(moved.saturated(), copied.saturated());
}

}  // namespace
}  // namespace perftk::profile
