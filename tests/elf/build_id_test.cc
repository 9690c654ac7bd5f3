#include "elf/build_id.h"

#include <string>

#include "gtest/gtest.h"

namespace perftk::elf {
namespace {

std::string Bytes(const std::string& prefix, size_t zeros) {
  return prefix + std::string(zeros, '\0');
}

TEST(SameBuildId, EqualLengths) {
  EXPECT_TRUE(SameBuildId("\x01\x02\x03\x04\x05\x06\x07\x08", "\x01\x02\x03\x04\x05\x06\x07\x08"));
  EXPECT_FALSE(SameBuildId("\x01\x02\x03\x04\x05\x06\x07\x08", "\x01\x02\x03\x04\x05\x06\x07\x09"));
}

TEST(SameBuildId, ShortIdsPaddedWithZerosMatchInBothDirections) {
  const std::string id8 = "\xa5\x35\xd7\x22\x2f\x9f\x01\xd1";  // a kernel module's
  const std::string id16(16, '\x5a');
  const std::string id20(20, '\x7c');
  for (const std::string& id : {id8, id16, id20}) {
    SCOPED_TRACE(id.size());
    for (size_t padded_to : {16u, 20u}) {
      if (padded_to < id.size()) continue;
      std::string padded = Bytes(id, padded_to - id.size());
      EXPECT_TRUE(SameBuildId(id, padded));
      EXPECT_TRUE(SameBuildId(padded, id));
    }
  }
}

TEST(SameBuildId, APrefixFollowedByOtherBytesIsAnotherId) {
  const std::string id8 = "\xa5\x35\xd7\x22\x2f\x9f\x01\xd1";
  EXPECT_FALSE(SameBuildId(id8, id8 + "\x01" + std::string(11, '\0')));
  EXPECT_FALSE(SameBuildId(id8 + std::string(12, '\x01'), id8));
  EXPECT_FALSE(SameBuildId("\xa5\x35", id8)) << "a shorter id must agree and the rest be zero";
}

TEST(SameBuildId, EmptyMatchesNothing) {
  EXPECT_FALSE(SameBuildId("", ""));
  EXPECT_FALSE(SameBuildId("", std::string(20, '\0')));
}

TEST(SameBuildIdHex, TheSameRuleOnHexText) {
  EXPECT_TRUE(SameBuildIdHex("a535d7222f9f01d1", "a535d7222f9f01d10000000000000000"));
  EXPECT_TRUE(SameBuildIdHex("A535D7222F9F01D10000000000000000", "a535d7222f9f01d1"));
  EXPECT_FALSE(SameBuildIdHex("a535d7222f9f01d1", "a535d7222f9f01d20000000000000000"));
  EXPECT_FALSE(SameBuildIdHex("a535d7222f9f01d", "a535d7222f9f01d"));  // odd: not hex bytes
  EXPECT_FALSE(SameBuildIdHex("zz", "zz"));
}

}  // namespace
}  // namespace perftk::elf
