#include "base/build_id.h"

#include <map>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash_testing.h"
#include "gtest/gtest.h"

namespace perftk::base {
namespace {

BuildId Hex(absl::string_view hex) {
  std::optional<BuildId> id = BuildId::FromHex(hex);
  EXPECT_TRUE(id.has_value()) << hex;
  return id.value_or(BuildId());
}

constexpr absl::string_view kSha1 = "0123456789abcdef0123456789abcdef01234567";
constexpr absl::string_view kShort8 = "a1b2c3d4e5f60718";
constexpr absl::string_view kShort8Padded =
    "a1b2c3d4e5f607180000000000000000"
    "00000000";

TEST(BuildId, EmptyByDefault) {
  BuildId id;
  EXPECT_TRUE(id.empty());
  EXPECT_EQ(id.size(), 0u);
  EXPECT_EQ(id.ToHex(), "");
  EXPECT_EQ(id, BuildId::FromBytes(absl::string_view()));
}

TEST(BuildId, HexInAndOut) {
  EXPECT_EQ(Hex(kSha1).ToHex(), kSha1);
  EXPECT_EQ(Hex(kSha1).size(), 20u);
  EXPECT_EQ(Hex("ABCDEF").ToHex(), "abcdef") << "upper case in, lower case out";
  EXPECT_EQ(Hex("").size(), 0u);
  EXPECT_FALSE(BuildId::FromHex("abc").has_value()) << "odd length";
  EXPECT_FALSE(BuildId::FromHex("0x12").has_value());
  EXPECT_FALSE(BuildId::FromHex("zz").has_value());
}

TEST(BuildId, BytesInAndOut) {
  const std::string raw("\x01\x00\xff", 3);
  BuildId id = BuildId::FromBytes(raw);
  EXPECT_EQ(id.size(), 3u);
  EXPECT_EQ(id.bytes_view(), raw);
  EXPECT_EQ(id.ToHex(), "0100ff");
  EXPECT_EQ(id.bytes().size(), 3u);
  EXPECT_EQ(id.bytes()[2], std::byte{0xff});
  const uint8_t u8[] = {1, 0, 0xff};
  EXPECT_EQ(BuildId::FromBytes(std::span<const uint8_t>(u8)), id);
  const std::byte b[] = {std::byte{1}, std::byte{0}, std::byte{0xff}};
  EXPECT_EQ(BuildId::FromBytes(std::span<const std::byte>(b)), id);
}

TEST(BuildId, LongerThan20IsCut) {
  const std::string raw(32, '\x5a');
  EXPECT_EQ(BuildId::FromBytes(raw).size(), 20u);
  EXPECT_EQ(BuildId::FromBytes(raw).bytes_view(), raw.substr(0, 20));
  EXPECT_EQ(Hex(std::string(64, 'a')).ToHex(), std::string(40, 'a'));
}

TEST(BuildId, EqualityIsExact) {
  EXPECT_EQ(Hex(kSha1), Hex(kSha1));
  EXPECT_NE(Hex(kShort8), Hex(kShort8Padded)) << "sizes differ";
  EXPECT_NE(Hex("00"), BuildId());
}

TEST(BuildId, OrderIsTheHexOrder) {
  const absl::string_view hexes[] = {"", "00", "0000", "01", "7f", "80", "80ff", "ff"};
  for (absl::string_view a : hexes) {
    for (absl::string_view b : hexes) {
      EXPECT_EQ(Hex(a) < Hex(b), a < b) << a << " " << b;
    }
  }
}

TEST(BuildId, Hash) {
  EXPECT_TRUE(absl::VerifyTypeImplementsAbslHashCorrectly(
      {BuildId(), Hex("00"), Hex("0000"), Hex(kShort8), Hex(kShort8Padded), Hex(kSha1)}));
  absl::flat_hash_map<BuildId, int> by_id;
  by_id[Hex(kShort8)] = 8;
  by_id[Hex(kShort8Padded)] = 20;
  EXPECT_EQ(by_id.size(), 2u);
  EXPECT_EQ(by_id[Hex(kShort8)], 8);
  std::map<BuildId, int> ordered{{Hex("ff"), 1}, {Hex("00"), 2}};
  EXPECT_EQ(ordered.begin()->second, 2);
}

// perf's rule: an 8-byte note and the same id padded to 20 in a recording.
TEST(BuildIdMatches, ShortIdPaddedTo20MatchesItsNote) {
  EXPECT_TRUE(Hex(kShort8Padded).Matches(Hex(kShort8)));
  EXPECT_TRUE(Hex(kShort8).Matches(Hex(kShort8Padded)));
}

TEST(BuildIdMatches, Md5PaddedTo20MatchesIts16Bytes) {
  const std::string md5 = "00112233445566778899aabbccddeeff";
  EXPECT_TRUE(Hex(md5).Matches(Hex(md5 + "00000000")));
  EXPECT_FALSE(Hex(md5).Matches(Hex(md5 + "00000001"))) << "the extra bytes must be zero";
}

TEST(BuildIdMatches, AnotherIdIsRefused) {
  EXPECT_FALSE(Hex(kSha1).Matches(Hex("1123456789abcdef0123456789abcdef01234567")));
  EXPECT_FALSE(Hex(kShort8).Matches(Hex("a1b2c3d4e5f60719")));
  EXPECT_FALSE(Hex(kShort8).Matches(Hex(kSha1)));
}

TEST(BuildIdMatches, EmptyMatchesNothing) {
  EXPECT_FALSE(BuildId().Matches(BuildId()));
  EXPECT_FALSE(BuildId().Matches(Hex(kSha1)));
  EXPECT_FALSE(Hex(kSha1).Matches(BuildId()));
  EXPECT_FALSE(Hex("0000").Matches(BuildId())) << "not even an all-zero id";
}

TEST(BuildIdMatches, SameIdMatches) {
  EXPECT_TRUE(Hex(kSha1).Matches(Hex(kSha1)));
  EXPECT_TRUE(Hex("00").Matches(Hex("0000")));
}

TEST(BuildIdPadding, PaddedTo20) {
  EXPECT_EQ(Hex(kShort8).PaddedTo20(), Hex(kShort8Padded));
  EXPECT_EQ(Hex(kSha1).PaddedTo20(), Hex(kSha1));
  EXPECT_TRUE(BuildId().PaddedTo20().empty());
}

TEST(BuildIdPadding, UnpaddedDropsEveryTrailingZero) {
  EXPECT_EQ(Hex(kShort8Padded).Unpadded(), Hex(kShort8));
  EXPECT_EQ(Hex("12340000").Unpadded(), Hex("1234"));
  EXPECT_EQ(Hex(kSha1).Unpadded(), Hex(kSha1));
  EXPECT_TRUE(Hex("0000").Unpadded().empty());
}

TEST(BuildIdPadding, PrintableDropsZerosPast16Bytes) {
  const std::string md5 = "00112233445566778899aabbccddee00";
  EXPECT_EQ(Hex(md5 + "00000000").Printable(), Hex(md5)) << "the 16th byte's zero stays";
  EXPECT_EQ(Hex(kShort8Padded).Printable().size(), 16u);
  EXPECT_EQ(Hex(kShort8).Printable(), Hex(kShort8));
  EXPECT_EQ(Hex(kSha1).Printable(), Hex(kSha1));
}

}  // namespace
}  // namespace perftk::base
