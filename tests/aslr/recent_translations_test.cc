#include "aslr/recent_translations.h"

#include <optional>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace perftk::aslr {
namespace {

using ::testing::Eq;
using ::testing::Optional;

TEST(RecentTranslationsTest, AnswersOnlyInsideARememberedRangeOfTheSameSpace) {
  RecentTranslations recent;
  EXPECT_EQ(recent.Find(7, 2, 0x401000), std::nullopt);
  recent.Remember(7, 2, 0x400000, 0x402000, 0x1000);
  EXPECT_THAT(recent.Find(7, 2, 0x400000), Optional(Eq(0x401000u)));
  EXPECT_THAT(recent.Find(7, 2, 0x401fff), Optional(Eq(0x402fffu)));
  EXPECT_EQ(recent.Find(7, 2, 0x402000), std::nullopt);  // end is exclusive
  EXPECT_EQ(recent.Find(7, 2, 0x3fffff), std::nullopt);
  EXPECT_EQ(recent.Find(8, 2, 0x401000), std::nullopt);  // another process
  EXPECT_EQ(recent.Find(7, 1, 0x401000), std::nullopt);  // another space
}

TEST(RecentTranslationsTest, DeltasWrapModulo2To64) {
  RecentTranslations recent;
  // Moving down: the delta is negative modulo 2^64.
  recent.Remember(-1, 1, 0xffffffff81000000, 0xffffffff82000000,
                  0xffff800010000000 - 0xffffffff81000000);
  EXPECT_THAT(recent.Find(-1, 1, 0xffffffff81000123), Optional(Eq(0xffff800010000123u)));
}

TEST(RecentTranslationsTest, KeepsTheLastFourAndForgetsAllOnClear) {
  RecentTranslations recent;
  for (uint64_t i = 0; i < 5; ++i) recent.Remember(1, 2, i << 20, (i << 20) + 0x1000, 0x10);
  EXPECT_EQ(recent.Find(1, 2, 0), std::nullopt);  // the oldest went
  for (uint64_t i = 1; i < 5; ++i)
    EXPECT_THAT(recent.Find(1, 2, i << 20), Optional(Eq((i << 20) + 0x10)));
  recent.Clear();
  for (uint64_t i = 1; i < 5; ++i) EXPECT_EQ(recent.Find(1, 2, i << 20), std::nullopt);
}

}  // namespace
}  // namespace perftk::aslr
