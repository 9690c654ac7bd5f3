// The samples `perftk unwind` holds while their stacks are unwound.
//
// A window is samples with stack copies, in their order, unwound as one
// batch of the ordered stage (pipeline/ordered_batches.h); the records
// between them pass through the stage, which writes each behind the
// window before it. The open window fills; a closed one waits behind the
// windows closed before it until it is unwound and written, oldest first.
// Windows and samples written are kept for their buffers (a sample's stack
// copy above all), so the steady state allocates nothing. Memory: a window
// holds at most kMaxSamples samples; how many windows wait is the stage's
// bound. One thread; the unwinding threads only touch the samples of
// closed windows.
#ifndef PERFTK_UNWIND_SAMPLE_WINDOWS_H_
#define PERFTK_UNWIND_SAMPLE_WINDOWS_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "base/bytes.h"
#include "perf/sample.h"

namespace perftk::unwind {

// A sample waiting to be unwound, then written as a sample record made of
// `misc` and `sample` (its bytes are not kept twice).
struct PendingSample {
  size_t event = 0;
  uint16_t misc = 0;
  uint64_t file_offset = 0;
  perf::Sample sample;
  // The valid part of the stack copy, when it was left in a lasting input
  // record rather than copied into `sample`.
  bool stack_in_input = false;
  base::Bytes stack;
};

struct SampleWindow {
  std::vector<PendingSample> samples;
};

class SampleWindows {
 public:
  static constexpr size_t kMaxSamples = 256;

  // Keeps the buffers of up to `max_spare_samples` written samples.
  explicit SampleWindows(size_t max_spare_samples);

  // Whether any sample waits, in the open window or in closed ones.
  bool empty() const { return open_->samples.empty() && closed_.empty(); }
  SampleWindow& open() { return *open_; }
  bool OpenIsFull() const { return open_->samples.size() >= kMaxSamples; }
  // A new sample at the end of the open window, with the buffers of one
  // written before.
  PendingSample& AddSample();

  // Puts the open window behind the closed ones and opens an empty one.
  // The closed window stays where it is until RetireOldest.
  SampleWindow& Close();
  SampleWindow& oldest() { return *closed_.front(); }
  // Drops the oldest closed window, once written, keeping its buffers.
  void RetireOldest();
  // Drops every sample held.
  void Clear();

  // The file offset of the oldest sample whose stack copy is read in the
  // input, UINT64_MAX for none.
  uint64_t OldestViewHeld() const;

 private:
  const size_t max_spare_samples_;
  std::unique_ptr<SampleWindow> open_ = std::make_unique<SampleWindow>();
  std::deque<std::unique_ptr<SampleWindow>> closed_;          // oldest first
  std::vector<std::unique_ptr<SampleWindow>> spare_windows_;  // written, emptied
  std::vector<perf::Sample> spare_samples_;
};

}  // namespace perftk::unwind

#endif  // PERFTK_UNWIND_SAMPLE_WINDOWS_H_
