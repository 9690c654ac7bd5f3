// TimeConversion does perf's arithmetic (tools/perf/util/tsc.c).
#include "perf/time_conv.h"

#include "gtest/gtest.h"

namespace perftk {
namespace {

TEST(TimeConversion, MatchesPerfArithmetic) {
  perf::TimeConversion tc;
  tc.time_shift = 10;
  tc.time_mult = 1500;  // 1.46484375 ns per cycle
  tc.time_zero = 7;
  // quot = 3, rem = 5: 7 + 3 * 1500 + (5 * 1500 >> 10) = 7 + 4500 + 7
  EXPECT_EQ(tc.ToPerfTime((3 << 10) + 5), 4514u);
}

TEST(TimeConversion, AShortCounterIsFoldedBackIntoItsWidth) {
  perf::TimeConversion tc;
  tc.time_shift = 0;
  tc.time_mult = 1;
  tc.time_cycles = 0x1000;
  tc.time_mask = 0xff;
  tc.cap_user_time_short = true;
  // 0x1234: 0x1000 + ((0x1234 - 0x1000) & 0xff) = 0x1034.
  EXPECT_EQ(tc.ToPerfTime(0x1234), 0x1034u);
  tc.cap_user_time_short = false;
  EXPECT_EQ(tc.ToPerfTime(0x1234), 0x1234u);
}

TEST(TimeConversion, NoOverflowForLargeCounts) {
  perf::TimeConversion tc;
  tc.time_shift = 31;
  tc.time_mult = 0xffffffff;
  // cycles * mult would overflow 64 bits; the split form does not.
  const uint64_t cycles = uint64_t{1} << 40;
  EXPECT_EQ(tc.ToPerfTime(cycles), (cycles >> 31) * 0xffffffffu);
}

}  // namespace
}  // namespace perftk
