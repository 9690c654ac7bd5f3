#include "base/json.h"

#include <string>

#include "gtest/gtest.h"

namespace perftk::base {
namespace {

TEST(JsonString, EscapesQuotesBackslashesAndControlCharacters) {
  EXPECT_EQ(JsonString(""), "\"\"");
  EXPECT_EQ(JsonString("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(JsonString("l1\nl2\tx\r"), "\"l1\\nl2\\tx\\r\"");
  EXPECT_EQ(JsonString(std::string("\x01\x1f\x7f", 3)), "\"\\u0001\\u001f\\u007f\"");
  EXPECT_EQ(JsonString(std::string("a\0b", 3)), "\"a\\u0000b\"");
}

TEST(JsonString, KeepsValidUtf8AndEscapesOtherBytes) {
  EXPECT_EQ(JsonString("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5"),
            "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5\"");
  EXPECT_EQ(JsonString("\xe9t\xe9"), "\"\\u00e9t\\u00e9\"") << "Latin-1 bytes";
  EXPECT_EQ(JsonString("\xc3"), "\"\\u00c3\"") << "a sequence cut short";
  EXPECT_EQ(JsonString("\xc0\xaf"), "\"\\u00c0\\u00af\"") << "an overlong form";
  EXPECT_EQ(JsonString("\xed\xa0\x80"), "\"\\u00ed\\u00a0\\u0080\"") << "a surrogate";
}

}  // namespace
}  // namespace perftk::base
