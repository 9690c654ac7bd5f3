#include "unwind/sample_windows.h"

#include <cstddef>
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"

namespace perftk::unwind {
namespace {

// A sample to unwind in the open window, its stack left at `offset`.
void AddSample(SampleWindows& windows, uint64_t offset, bool stack_in_input) {
  PendingSample& pending = windows.AddSample();
  pending.file_offset = offset;
  pending.stack_in_input = stack_in_input;
}

TEST(SampleWindowsTest, ClosedWindowsWaitOldestFirst) {
  SampleWindows windows(8);
  EXPECT_TRUE(windows.empty());
  AddSample(windows, 100, true);
  EXPECT_FALSE(windows.empty());
  SampleWindow* first = &windows.Close();
  EXPECT_TRUE(windows.open().samples.empty());
  AddSample(windows, 200, true);
  SampleWindow* second = &windows.Close();
  EXPECT_EQ(&windows.oldest(), first);
  EXPECT_EQ(first->samples[0].file_offset, 100u);
  windows.RetireOldest();
  EXPECT_EQ(&windows.oldest(), second);
  windows.RetireOldest();
  EXPECT_TRUE(windows.empty());
}

TEST(SampleWindowsTest, OpenIsFullAtMaxSamples) {
  SampleWindows windows(1);
  for (size_t i = 0; i + 1 < SampleWindows::kMaxSamples; ++i) AddSample(windows, i, false);
  EXPECT_FALSE(windows.OpenIsFull());
  AddSample(windows, 0, false);
  EXPECT_TRUE(windows.OpenIsFull());
  windows.Close();
  EXPECT_FALSE(windows.OpenIsFull());
}

// A written sample's buffers (its stack copy above all) serve a later one,
// as many as the windows keep.
TEST(SampleWindowsTest, RetiredSamplesKeepTheirBuffers) {
  SampleWindows windows(1);
  AddSample(windows, 0, false);
  AddSample(windows, 0, false);
  windows.open().samples[0].sample.stack_user.data.resize(8192);
  windows.open().samples[1].sample.stack_user.data.resize(4096);
  windows.Close();
  windows.RetireOldest();
  EXPECT_GE(windows.AddSample().sample.stack_user.data.capacity(), 8192u);
  EXPECT_EQ(windows.AddSample().sample.stack_user.data.capacity(), 0u);  // one kept
}

// A window retired is the one opened next, buffers and all.
TEST(SampleWindowsTest, RetiredWindowsAreOpenedAgain) {
  SampleWindows windows(4);
  AddSample(windows, 0, false);
  SampleWindow* first = &windows.Close();
  windows.RetireOldest();
  SampleWindow* reopened = &windows.Close();  // the one opened by the first Close
  EXPECT_NE(reopened, first);
  EXPECT_EQ(&windows.open(), first);
  EXPECT_TRUE(windows.open().samples.empty());
}

TEST(SampleWindowsTest, OldestViewHeldLooksInEveryWindowUntilCleared) {
  SampleWindows windows(8);
  EXPECT_EQ(windows.OldestViewHeld(), UINT64_MAX);
  AddSample(windows, 500, true);
  AddSample(windows, 50, false);  // copied: holds no view
  windows.Close();
  AddSample(windows, 300, true);
  EXPECT_EQ(windows.OldestViewHeld(), 300u);
  windows.Close();
  AddSample(windows, 400, true);
  EXPECT_EQ(windows.OldestViewHeld(), 300u);
  windows.RetireOldest();
  EXPECT_EQ(windows.OldestViewHeld(), 300u);
  windows.Clear();
  EXPECT_TRUE(windows.empty());
  EXPECT_EQ(windows.OldestViewHeld(), UINT64_MAX);
}

}  // namespace
}  // namespace perftk::unwind
