#include "pipeline/tool_feed.h"

#include <string>

#include "machine/record_events.h"

namespace perftk::pipeline {

ToolFeed::ToolFeed(Tool& tool) : tool_(tool), policy_(tool.model_policy()) {
  if (policy_) tool_.set_model(&model_);
}

ToolFeed::~ToolFeed() {
  if (!ended_) tool_.Abandon();
  if (policy_) tool_.set_model(nullptr);
}

absl::Status ToolFeed::End(RecordSink& out, perf::FeatureSet& features) {
  absl::Status status = tool_.End(out, features);
  ended_ = status.ok();  // End joined the tool's work
  return status;
}

absl::Status ToolFeed::Begin(perf::Header& header) { return tool_.Begin(header); }

absl::Status ToolFeed::Process(const perf::Record& record, RecordSink& out) {
  if (policy_ && machine::ChangesMachines(record.type())) {
    if (absl::Status s = tool_.BeforeModelChange(record, out); !s.ok()) return s;
    if (record.type() != PERF_RECORD_EXIT || policy_->apply_exits) {
      absl::Status applied = machine::ApplyRecord(model_, record);
      if (!applied.ok()) {
        if (policy_->bad_records_to == nullptr) return applied;
        policy_->bad_records_to->Warn(std::string(applied.message()));
      }
    }
  }
  return tool_.Process(record, out);
}

}  // namespace perftk::pipeline
