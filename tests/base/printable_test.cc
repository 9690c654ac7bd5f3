#include "base/printable.h"

#include "gtest/gtest.h"

namespace perftk::base {
namespace {

TEST(Printable, KeepsPrintableAsciiAndUtf8) {
  EXPECT_EQ(Printable("/usr/lib/libc.so.6"), "/usr/lib/libc.so.6");
  EXPECT_EQ(Printable("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"),
            "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
}

TEST(Printable, EscapesControlsAndBackslashes) {
  EXPECT_EQ(Printable("a\033[31mred"), "a\\x1b[31mred");
  EXPECT_EQ(Printable("line\nnext\ttab\rcr"), "line\\nnext\\ttab\\rcr");
  EXPECT_EQ(Printable(std::string("nul\0end", 7)), "nul\\x00end");
  EXPECT_EQ(Printable("del\x7f"), "del\\x7f");
  EXPECT_EQ(Printable("C:\\path"), "C:\\\\path") << "a backslash is told apart from an escape";
}

TEST(Printable, EscapesBytesThatAreNotUtf8) {
  EXPECT_EQ(Printable("\xff\xfe"), "\\xff\\xfe");
  EXPECT_EQ(Printable("\xc3"), "\\xc3") << "a sequence cut short";
  EXPECT_EQ(Printable("\xc0\xaf"), "\\xc0\\xaf") << "overlong";
  EXPECT_EQ(Printable("\xed\xa0\x80"), "\\xed\\xa0\\x80") << "a surrogate";
  EXPECT_EQ(Printable("\xc2\x9b"
                      "31m"),
            "\\xc2\\x9b31m")
      << "C1 CSI acts like ESC [";
}

}  // namespace
}  // namespace perftk::base
