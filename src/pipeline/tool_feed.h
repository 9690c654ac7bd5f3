// Hands a tool its records the way RunPipeline does (pipeline.h), keeping
// the machine model for a tool that reads it (Tool::model_policy): the one
// place the model changes. Tests drive tools through it too.
#ifndef PERFTK_PIPELINE_TOOL_FEED_H_
#define PERFTK_PIPELINE_TOOL_FEED_H_

#include <optional>

#include "absl/status/status.h"
#include "machine/machines.h"
#include "perf/header.h"
#include "perf/record.h"
#include "pipeline/tool.h"

namespace perftk::pipeline {

class ToolFeed {
 public:
  // `tool` must outlive the feed.
  explicit ToolFeed(Tool& tool);
  // Abandons the tool (Tool::Abandon) unless End succeeded, so that its
  // threads are done before the model (and whatever was declared before
  // the feed, such as the reader of the input) goes.
  ~ToolFeed();
  ToolFeed(const ToolFeed&) = delete;
  ToolFeed& operator=(const ToolFeed&) = delete;

  // Gives the tool the model, then the header.
  absl::Status Begin(perf::Header& header);
  // A record that changes the model: the tool's BeforeModelChange, the
  // model takes it (by the tool's policy), then the tool's Process.
  absl::Status Process(const perf::Record& record, RecordSink& out);
  // The tool's End.
  absl::Status End(RecordSink& out, perf::FeatureSet& features);

  const machine::Machines& model() const { return model_; }

 private:
  Tool& tool_;
  std::optional<ModelPolicy> policy_;
  machine::Machines model_;
  bool ended_ = false;
};

}  // namespace perftk::pipeline

#endif  // PERFTK_PIPELINE_TOOL_FEED_H_
