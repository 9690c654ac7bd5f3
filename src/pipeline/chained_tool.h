// Two tools run as one pass: every record the first emits goes through the
// second before it reaches the output (e.g. `perftk aslr` unwinding dwarf
// stacks before it removes them). Each tool sees the header after the ones
// before it changed it. A first tool that passes every record through
// (Tool::PassesAllThrough after its Begin) is left out of the pass. Both
// read the pipeline's one model; their policies must agree.
#ifndef PERFTK_PIPELINE_CHAINED_TOOL_H_
#define PERFTK_PIPELINE_CHAINED_TOOL_H_

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <utility>

#include "absl/status/status.h"
#include "pipeline/tool.h"

namespace perftk::pipeline {

class ChainedTool : public Tool {
 public:
  // Both tools must outlive this one.
  ChainedTool(Tool& first, Tool& second) : first_(first), second_(second) {}

  // The policy of either; one that differs from the other's is an error of
  // the program, found by Begin.
  std::optional<ModelPolicy> model_policy() const override {
    std::optional<ModelPolicy> policy = first_.model_policy();
    return policy ? policy : second_.model_policy();
  }
  void set_model(const machine::Machines* model) override {
    Tool::set_model(model);
    first_.set_model(model);
    second_.set_model(model);
  }
  absl::Status BeforeModelChange(const perf::Record& record, RecordSink& out) override {
    if (!skip_first_) {
      Forward forward(second_, out);
      if (absl::Status s = first_.BeforeModelChange(record, forward); !s.ok()) return s;
    }
    return second_.BeforeModelChange(record, out);
  }
  absl::Status Begin(perf::Header& header) override {
    const std::optional<ModelPolicy> first = first_.model_policy();
    const std::optional<ModelPolicy> second = second_.model_policy();
    if (first && second && *first != *second) {
      return absl::InternalError("two chained tools keep the machine model differently");
    }
    if (absl::Status s = first_.Begin(header); !s.ok()) return s;
    skip_first_ = first_.PassesAllThrough();
    return second_.Begin(header);
  }
  absl::Status Process(const perf::Record& record, RecordSink& out) override {
    if (skip_first_) return second_.Process(record, out);
    Forward forward(second_, out);
    return first_.Process(record, forward);
  }
  uint64_t OldestViewHeld() const override {
    return std::min(first_.OldestViewHeld(), second_.OldestViewHeld());
  }
  // Either tool's reports are the pass's (both run on the pipeline's thread).
  void set_progress(std::function<void(uint64_t)> progress) override {
    first_.set_progress(progress);
    second_.set_progress(std::move(progress));
  }
  bool reports_progress() const override {
    return first_.reports_progress() || second_.reports_progress();
  }
  void Abandon() override {
    first_.Abandon();
    second_.Abandon();
  }
  absl::Status End(RecordSink& out, perf::FeatureSet& features) override {
    if (skip_first_) return second_.End(out, features);
    Forward forward(second_, out);
    if (absl::Status s = first_.End(forward, features); !s.ok()) return s;
    return second_.End(out, features);
  }

 private:
  // Hands what the first tool emits to the second.
  class Forward : public RecordSink {
   public:
    Forward(Tool& next, RecordSink& out) : next_(next), out_(out) {}
    absl::Status Emit(const perf::Record& record) override { return next_.Process(record, out_); }

   private:
    Tool& next_;
    RecordSink& out_;
  };

  Tool& first_;
  Tool& second_;
  bool skip_first_ = false;
};

}  // namespace perftk::pipeline

#endif  // PERFTK_PIPELINE_CHAINED_TOOL_H_
