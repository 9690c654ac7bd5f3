#include "expected.h"

#include <deque>
#include <optional>

namespace perftk::etm_gen {

class ExpectedSampleModel::Impl {
 public:
  Impl(uint32_t cpu, const ExpectOptions& options) : cpu_(cpu), options_(options) {}

  std::vector<ExpectedSample> Take() {
    std::vector<ExpectedSample> out;
    out.swap(out_);
    return out;
  }

  void Feed(const std::vector<TruthEvent>& events) {
    for (const TruthEvent& event : events) {
      switch (event.kind) {
        case TruthEvent::Kind::kBlockStart:
          time_ = event.time;
          Flush(true);
          after_discontinuity_ = true;
          prev_.reset();
          break;
        case TruthEvent::Kind::kRange:
          OnRange(event);
          break;
        case TruthEvent::Kind::kSwitch:
          if (prev_) Flush(true);
          prev_.reset();
          after_discontinuity_ = false;
          break;
        case TruthEvent::Kind::kTraceOn:
          Flush(true);
          prev_.reset();
          after_discontinuity_ = true;
          break;
        case TruthEvent::Kind::kBlockEnd:
          // The decoder reports the end of the trace as a discontinuity.
          Flush(true);
          prev_.reset();
          after_discontinuity_ = false;
          break;
      }
    }
  }

 private:
  void OnRange(const TruthEvent& range) {
    const bool prev_taken = prev_ && prev_->taken;
    if (options_.last_branch && prev_taken) {
      ring_.push_front({prev_->end - 4, range.start});
      if (ring_.size() > options_.last_branch_size) ring_.pop_back();
    }
    const uint64_t before = pending_;
    pending_ += range.instructions;
    if (options_.instructions && pending_ >= options_.period) {
      uint64_t index = options_.period - before;  // 1-based in this range
      while (pending_ >= options_.period) {
        Instruction(range, range.start + 4 * (index - 1), options_.period);
        index += options_.period;
        pending_ -= options_.period;
      }
    }
    if (options_.branches) {
      if (after_discontinuity_) {
        Branch(range, 0, range.start);
      } else if (prev_taken) {
        Branch(*prev_, prev_->end - 4, range.start);
      }
    }
    after_discontinuity_ = false;
    prev_ = range;
  }

  void Flush(bool reset_ring) {
    if (prev_) {
      if (options_.instructions && options_.last_branch) {
        Instruction(*prev_, prev_->end - 4, pending_);
        pending_ = 0;
      }
      if (options_.branches) Branch(*prev_, prev_->end - 4, 0);
    }
    if (reset_ring) ring_.clear();
  }

  void Instruction(const TruthEvent& at, uint64_t ip, uint64_t period) {
    ExpectedSample sample = New(at);
    sample.ip = ip;
    sample.period = period;
    if (options_.last_branch) sample.branches.assign(ring_.begin(), ring_.end());
    out_.push_back(std::move(sample));
  }

  void Branch(const TruthEvent& from, uint64_t ip, uint64_t addr) {
    ExpectedSample sample = New(from);
    sample.branch = true;
    sample.ip = ip;
    sample.addr = addr;
    sample.period = 1;
    out_.push_back(std::move(sample));
  }

  ExpectedSample New(const TruthEvent& at) const {
    ExpectedSample sample;
    sample.cpu = cpu_;
    sample.context = at.context;
    sample.time = time_;
    return sample;
  }

  const uint32_t cpu_;
  const ExpectOptions options_;
  std::optional<TruthEvent> prev_;
  bool after_discontinuity_ = false;
  uint64_t pending_ = 0;
  uint64_t time_ = 0;
  std::deque<std::pair<uint64_t, uint64_t>> ring_;
  std::vector<ExpectedSample> out_;
};

ExpectedSampleModel::ExpectedSampleModel(uint32_t cpu, const ExpectOptions& options)
    : impl_(std::make_unique<Impl>(cpu, options)) {}
ExpectedSampleModel::~ExpectedSampleModel() = default;
void ExpectedSampleModel::Feed(const std::vector<TruthEvent>& events) { impl_->Feed(events); }
std::vector<ExpectedSample> ExpectedSampleModel::Take() { return impl_->Take(); }

std::vector<ExpectedSample> ExpectedSamples(const CpuTruth& truth, const ExpectOptions& options) {
  ExpectedSampleModel model(truth.cpu, options);
  model.Feed(truth.events);
  return model.Take();
}

}  // namespace perftk::etm_gen
