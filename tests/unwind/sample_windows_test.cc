#include "unwind/sample_windows.h"

#include <cstddef>
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"

namespace perftk::unwind {
namespace {

// A sample to unwind in the open window, its stack left at `offset`.
void AddSample(SampleWindows& windows, uint64_t offset, bool stack_in_input) {
  SampleWindow& window = windows.open();
  window.samples.push_back(window.records.size());
  PendingRecord& pending = window.records.emplace_back();
  pending.unwind = true;
  pending.file_offset = offset;
  pending.stack_in_input = stack_in_input;
  pending.sample = windows.TakeSpareSample();
}

TEST(SampleWindowsTest, ClosedWindowsWaitOldestFirst) {
  SampleWindows windows(2);
  EXPECT_TRUE(windows.empty());
  AddSample(windows, 100, true);
  EXPECT_FALSE(windows.empty());
  SampleWindow* first = &windows.Close();
  EXPECT_TRUE(windows.open().records.empty());
  AddSample(windows, 200, true);
  SampleWindow* second = &windows.Close();
  EXPECT_EQ(&windows.oldest(), first);
  windows.RetireOldest();
  EXPECT_EQ(&windows.oldest(), second);
  windows.RetireOldest();
  EXPECT_TRUE(windows.empty());
}

TEST(SampleWindowsTest, OpenIsFullAtEitherLimit) {
  SampleWindows samples(1);
  for (size_t i = 0; i + 1 < SampleWindows::kMaxSamples; ++i) AddSample(samples, i, false);
  EXPECT_FALSE(samples.OpenIsFull());
  AddSample(samples, 0, false);
  EXPECT_TRUE(samples.OpenIsFull());

  SampleWindows records(1);
  const std::vector<std::byte> bytes(8, std::byte{0});
  for (size_t i = 0; i + 1 < SampleWindows::kMaxRecords; ++i) records.Keep(perf::Record(bytes, i));
  EXPECT_FALSE(records.OpenIsFull());
  records.Keep(perf::Record(bytes, 0));
  EXPECT_TRUE(records.OpenIsFull());
}

// A written sample's buffers (its stack copy above all) serve a later one.
TEST(SampleWindowsTest, RetiredSamplesKeepTheirBuffers) {
  SampleWindows windows(1);
  AddSample(windows, 0, false);
  windows.open().records.back().sample.stack_user.data.resize(8192);
  windows.Close();
  windows.RetireOldest();
  perf::Sample reused = windows.TakeSpareSample();
  EXPECT_GE(reused.stack_user.data.capacity(), 8192u);
  EXPECT_EQ(windows.TakeSpareSample().stack_user.data.capacity(), 0u);
}

TEST(SampleWindowsTest, OldestViewHeldLooksInEveryWindowUntilCleared) {
  SampleWindows windows(2);
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
