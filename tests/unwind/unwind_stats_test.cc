#include "unwind/unwind_stats.h"

#include "gtest/gtest.h"

namespace perftk::unwind {
namespace {

size_t Stop(UnwindStop stop) { return static_cast<size_t>(stop); }

// The header's example, counted as UnwindTool counts.
TEST(UnwindStatsTest, TheSummaryNamesTheNonZeroReasons) {
  UnwindStats stats;
  stats.samples = 650;
  stats.with_stack = 648;
  stats.full = 640;
  stats.partly[Stop(UnwindStop::kNoCfi)] = 6;
  stats.not_at_all[Stop(UnwindStop::kUnknownMap)] = 2;
  EXPECT_EQ(DescribeUnwindStats(stats),
            "648 of 650 samples had a stack copy: 640 unwound fully, 6 partly (6 no CFI), "
            "2 not at all (2 unknown map)");
}

TEST(UnwindStatsTest, SamplesWithoutRegistersCountAsNotUnwound) {
  UnwindStats stats;
  stats.samples = stats.with_stack = 5;
  stats.full = 2;
  stats.no_registers = 2;
  stats.not_at_all[Stop(UnwindStop::kStackTooShort)] = 1;
  EXPECT_EQ(stats.not_at_all_total(), 3u);
  EXPECT_EQ(DescribeUnwindStats(stats),
            "5 of 5 samples had a stack copy: 2 unwound fully, 0 partly, 3 not at all "
            "(1 stack copy too short, 2 no user registers)");
}

TEST(UnwindStatsTest, AddAddsEveryCount) {
  UnwindStats a;
  a.samples = 3;
  a.partly[Stop(UnwindStop::kUnrecordedMemory)] = 1;
  a.frames = 10;
  UnwindStats b = a;
  b.frames_taken_over = 4;
  b.no_registers = 1;
  a.Add(b);
  EXPECT_EQ(a.samples, 6u);
  EXPECT_EQ(a.partly_total(), 2u);
  EXPECT_EQ(a.frames, 20u);
  EXPECT_EQ(a.frames_taken_over, 4u);
  EXPECT_EQ(a.not_at_all_total(), 1u);
}

}  // namespace
}  // namespace perftk::unwind
