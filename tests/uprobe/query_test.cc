#include "uprobe/query.h"

#include "gtest/gtest.h"

namespace perftk::uprobe {
namespace {

TEST(ParseQuery, Forms) {
  auto q = ParseQuery("malloc");
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->name, "malloc");
  EXPECT_TRUE(q->version.empty());

  q = ParseQuery("vfn@VER_1");
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->name, "vfn");
  EXPECT_EQ(q->version, "VER_1");
  EXPECT_FALSE(q->default_version_only);

  q = ParseQuery("vfn@@VER_2+0x10");
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->version, "VER_2");
  EXPECT_TRUE(q->default_version_only);
  EXPECT_EQ(q->offset, 0x10u);

  q = ParseQuery("f+16");
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->offset, 16u);

  q = ParseQuery("operator+");  // a '+' without a number stays in the name
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->name, "operator+");
}

TEST(ParseQuery, Errors) {
  EXPECT_FALSE(ParseQuery("").ok());
  EXPECT_FALSE(ParseQuery("@VER").ok());
  EXPECT_FALSE(ParseQuery("f@").ok());
  EXPECT_FALSE(ParseQuery("f@A@B").ok());
}

}  // namespace
}  // namespace perftk::uprobe
