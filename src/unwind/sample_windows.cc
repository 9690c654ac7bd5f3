#include "unwind/sample_windows.h"

#include <algorithm>
#include <utility>

namespace perftk::unwind {

SampleWindows::SampleWindows(size_t max_closed)
    : max_spare_samples_(kMaxSamples * (max_closed + 1)) {}

bool SampleWindows::OpenIsFull() const {
  return open_->samples.size() >= kMaxSamples || open_->records.size() >= kMaxRecords;
}

void SampleWindows::Keep(const perf::Record& record) {
  open_->records.emplace_back().record = perf::OwnedRecord(record);
}

perf::Sample SampleWindows::TakeSpareSample() {
  if (spare_samples_.empty()) return perf::Sample();
  perf::Sample sample = std::move(spare_samples_.back());
  spare_samples_.pop_back();
  return sample;
}

SampleWindow& SampleWindows::Close() {
  closed_.push_back(std::move(open_));
  open_ = spare_ != nullptr ? std::move(spare_) : std::make_unique<SampleWindow>();
  return *closed_.back();
}

void SampleWindows::RetireOldest() {
  std::unique_ptr<SampleWindow> window = std::move(closed_.front());
  closed_.pop_front();
  for (PendingRecord& pending : window->records) {
    if (pending.unwind && spare_samples_.size() < max_spare_samples_) {
      spare_samples_.push_back(std::move(pending.sample));
    }
  }
  window->records.clear();
  window->samples.clear();
  spare_ = std::move(window);
}

void SampleWindows::Clear() {
  closed_.clear();
  open_->records.clear();
  open_->samples.clear();
}

uint64_t SampleWindows::OldestViewHeld() const {
  uint64_t oldest = UINT64_MAX;
  auto look_in = [&oldest](const SampleWindow& window) {
    for (size_t i : window.samples) {
      const PendingRecord& pending = window.records[i];
      if (pending.stack_in_input) oldest = std::min(oldest, pending.file_offset);
    }
  };
  look_in(*open_);
  for (const std::unique_ptr<SampleWindow>& window : closed_) look_in(*window);
  return oldest;
}

}  // namespace perftk::unwind
