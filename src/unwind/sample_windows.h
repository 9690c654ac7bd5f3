// The records `perftk unwind` holds while their samples are unwound.
//
// A window is records in their order, some of them samples to unwind. The
// open window fills; a closed one waits behind the windows closed before
// it until it is unwound and written, oldest first. Windows and samples
// written are kept for their buffers (a sample's stack copy above all), as
// many as can wait at once, so the steady state allocates nothing. Memory:
// a window holds at most kMaxSamples samples and kMaxRecords records. One
// thread; the unwinding threads only touch the samples of closed windows.
#ifndef PERFTK_UNWIND_SAMPLE_WINDOWS_H_
#define PERFTK_UNWIND_SAMPLE_WINDOWS_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "perf/record.h"
#include "perf/sample.h"

namespace perftk::unwind {

// A record waiting in a window: `record` written as read, or, when
// `unwind`, a sample record made of `misc` and `sample` once its stack is
// unwound (the sample's bytes are not kept twice).
struct PendingRecord {
  perf::OwnedRecord record;
  bool unwind = false;
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
  std::vector<PendingRecord> records;
  std::vector<size_t> samples;  // indexes into records of those to unwind
};

class SampleWindows {
 public:
  static constexpr size_t kMaxSamples = 256;
  static constexpr size_t kMaxRecords = 4 * kMaxSamples;

  // Up to `max_closed` closed windows wait at once.
  explicit SampleWindows(size_t max_closed);

  // Whether any record waits, in the open window or in closed ones.
  bool empty() const { return open_->records.empty() && closed_.empty(); }
  SampleWindow& open() { return *open_; }
  bool OpenIsFull() const;
  // Keeps `record` in the open window, as read.
  void Keep(const perf::Record& record);
  // A sample to decode into, with the buffers of one written before.
  perf::Sample TakeSpareSample();

  // Puts the open window behind the closed ones and opens an empty one.
  // The closed window stays where it is until RetireOldest.
  SampleWindow& Close();
  SampleWindow& oldest() { return *closed_.front(); }
  // Drops the oldest closed window, once written, keeping its buffers.
  void RetireOldest();
  // Drops every record held.
  void Clear();

  // The file offset of the oldest sample whose stack copy is read in the
  // input, UINT64_MAX for none.
  uint64_t OldestViewHeld() const;

 private:
  const size_t max_spare_samples_;
  std::unique_ptr<SampleWindow> open_ = std::make_unique<SampleWindow>();
  std::deque<std::unique_ptr<SampleWindow>> closed_;  // oldest first
  std::unique_ptr<SampleWindow> spare_;               // a written window
  std::vector<perf::Sample> spare_samples_;
};

}  // namespace perftk::unwind

#endif  // PERFTK_UNWIND_SAMPLE_WINDOWS_H_
