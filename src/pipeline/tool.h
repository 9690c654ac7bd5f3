// The pipeline every rewriting mode shares: Reader -> Tool -> Writer.
//
// A Tool sees the header once, before anything is written (to change attrs
// or features), then every record in stored order; for each it emits the
// record as it is, a changed copy, other records, or nothing.
//
// The pipeline keeps the one machine model (machine/machines.h) of the
// input's records for the tools that read it (model_policy): before a
// record that changes it (machine::ChangesMachines), the tool finishes
// what reads the model as it is (BeforeModelChange), the model takes the
// record, then the tool gets it (Process). Records a tool makes itself do
// not change the model.
#ifndef PERFTK_PIPELINE_TOOL_H_
#define PERFTK_PIPELINE_TOOL_H_

#include <cstdint>
#include <functional>
#include <optional>

#include "absl/status/status.h"
#include "base/warnings.h"
#include "machine/machines.h"
#include "perf/header.h"
#include "perf/record.h"

namespace perftk::pipeline {

// Where a tool puts the records it keeps or makes.
class RecordSink {
 public:
  virtual ~RecordSink() = default;
  virtual absl::Status Emit(const perf::Record& record) = 0;
};

// How the pipeline's model takes the records that change it.
struct ModelPolicy {
  // An EXIT removes the thread (perf's rule), or leaves it with its maps
  // (cs-etm-decode: trace recorded before the EXIT is decoded after it).
  bool apply_exits = true;
  // Where a record the model cannot take is warned about (the tool's own
  // warnings, printed with its others); null: it ends the run.
  base::WarningSink* bad_records_to = nullptr;
  bool operator==(const ModelPolicy&) const = default;
};

class Tool {
 public:
  virtual ~Tool() = default;
  // Whether the tool reads the pipeline's model, and how it is kept;
  // nullopt: it does not (the pipeline then keeps none). Asked before
  // Begin.
  virtual std::optional<ModelPolicy> model_policy() const { return std::nullopt; }
  // The model, given before Begin to a tool that has a model policy; it
  // changes only between BeforeModelChange and Process.
  virtual void set_model(const machine::Machines* model) { model_ = model; }
  // Before `record` changes the model: finish what reads the model as it
  // is (samples held, work on other threads), emitting what that makes.
  virtual absl::Status BeforeModelChange(const perf::Record& record, RecordSink& out) {
    (void)record;
    (void)out;
    return absl::OkStatus();
  }
  // Called once with the input's header; what it leaves is what is written.
  virtual absl::Status Begin(perf::Header& header) {
    (void)header;
    return absl::OkStatus();
  }
  virtual absl::Status Process(const perf::Record& record, RecordSink& out) = 0;
  // After Begin: whether every record will leave as it came and End will
  // emit nothing, so that a chain may leave this tool out.
  virtual bool PassesAllThrough() const { return false; }
  // The file offset of the oldest lasting record (Record::lasting) whose
  // bytes the tool still reads after Process returned, UINT64_MAX if none:
  // the input keeps its pages in memory from there on.
  virtual uint64_t OldestViewHeld() const { return UINT64_MAX; }
  // The run failed (a bad record, a full disk): stop every thread that may
  // still read records handed to Process, and return once none does. Called
  // before the input they view is released; nothing is emitted after it and
  // End is not called. A tool whose threads read lasting records must
  // implement it.
  virtual void Abandon() {}
  // Called after the last record; may emit more and change the features.
  virtual absl::Status End(RecordSink& out, perf::FeatureSet& features) {
    (void)out;
    (void)features;
    return absl::OkStatus();
  }

  // Progress (RunPipeline's, on a terminal) is the input's file offset
  // below which every record is done with: by default, where the reader
  // is. A tool whose work runs behind the reader (on other threads, or in
  // End) says so from its first report on: it calls ReportDone, on the
  // pipeline's thread, as its work moves that offset on.
  virtual void set_progress(std::function<void(uint64_t)> progress) {
    progress_ = std::move(progress);
  }
  virtual bool reports_progress() const { return reports_progress_; }

 protected:
  // The pipeline's model (set_model); only for a tool with a model policy.
  const machine::Machines& model() const { return *model_; }
  void ReportDone(uint64_t file_offset) {
    reports_progress_ = true;
    if (progress_) progress_(file_offset);
  }

 private:
  std::function<void(uint64_t)> progress_;
  bool reports_progress_ = false;
  const machine::Machines* model_ = nullptr;
};

// The identity tool: every record is written as it came.
class CopyTool : public Tool {
 public:
  absl::Status Process(const perf::Record& record, RecordSink& out) override {
    return out.Emit(record);
  }
};

}  // namespace perftk::pipeline

#endif  // PERFTK_PIPELINE_TOOL_H_
