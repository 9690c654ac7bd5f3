#include "unwind/sample_windows.h"

#include <algorithm>
#include <utility>

namespace perftk::unwind {

SampleWindows::SampleWindows(size_t max_spare_samples) : max_spare_samples_(max_spare_samples) {}

PendingSample& SampleWindows::AddSample() {
  PendingSample& pending = open_->samples.emplace_back();
  if (!spare_samples_.empty()) {
    pending.sample = std::move(spare_samples_.back());
    spare_samples_.pop_back();
  }
  return pending;
}

SampleWindow& SampleWindows::Close() {
  closed_.push_back(std::move(open_));
  if (spare_windows_.empty()) {
    open_ = std::make_unique<SampleWindow>();
  } else {
    open_ = std::move(spare_windows_.back());
    spare_windows_.pop_back();
  }
  return *closed_.back();
}

void SampleWindows::RetireOldest() {
  std::unique_ptr<SampleWindow> window = std::move(closed_.front());
  closed_.pop_front();
  for (PendingSample& pending : window->samples) {
    if (spare_samples_.size() >= max_spare_samples_) break;
    spare_samples_.push_back(std::move(pending.sample));
  }
  window->samples.clear();
  // (Never more spares than windows waited at once.)
  spare_windows_.push_back(std::move(window));
}

void SampleWindows::Clear() {
  closed_.clear();
  open_->samples.clear();
}

uint64_t SampleWindows::OldestViewHeld() const {
  uint64_t oldest = UINT64_MAX;
  auto look_in = [&oldest](const SampleWindow& window) {
    for (const PendingSample& pending : window.samples) {
      if (pending.stack_in_input) oldest = std::min(oldest, pending.file_offset);
    }
  };
  look_in(*open_);
  for (const std::unique_ptr<SampleWindow>& window : closed_) look_in(*window);
  return oldest;
}

}  // namespace perftk::unwind
