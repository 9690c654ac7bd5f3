#include "cs_etm/itrace.h"

#include "gtest/gtest.h"

namespace perftk::cs_etm {
namespace {

TEST(Itrace, DefaultsAsPerf) {
  auto options = ParseItrace("il");
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_TRUE(options->instructions);
  EXPECT_EQ(options->period, 100000u);
  EXPECT_TRUE(options->last_branch);
  EXPECT_EQ(options->last_branch_size, 64u);
  EXPECT_FALSE(options->branches);
}

TEST(Itrace, PeriodsSizesAndUnits) {
  auto a = ParseItrace("i100il64");
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->period, 100u);
  EXPECT_EQ(a->last_branch_size, 64u);
  // perf's cs-etm counts instructions whatever the unit.
  auto b = ParseItrace("l32i10us");
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->period, 10u);
  EXPECT_EQ(b->last_branch_size, 32u);
  auto c = ParseItrace("b");
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c->branches);
  EXPECT_FALSE(c->instructions);
  EXPECT_EQ(FormatItrace(*ParseItrace("i1000il16b")), "i1000il16b");
}

TEST(Itrace, Errors) {
  EXPECT_FALSE(ParseItrace("").ok());
  EXPECT_FALSE(ParseItrace("x").ok());
  EXPECT_FALSE(ParseItrace("i0").ok());
  EXPECT_FALSE(ParseItrace("il0").ok());
  EXPECT_FALSE(ParseItrace("il1025").ok());
  EXPECT_FALSE(ParseItrace("l64").ok());  // stacks go on instruction samples
  EXPECT_FALSE(ParseItrace("i99999999999999999999999").ok());
  auto status = ParseItrace("ilq").status();
  EXPECT_NE(std::string(status.message()).find("'q'"), std::string::npos) << status;
}

}  // namespace
}  // namespace perftk::cs_etm
