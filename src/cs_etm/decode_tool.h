// `perftk cs-etm-decode` as a pipeline Tool: reads a CoreSight recording,
// decodes its trace and synthesizes samples (or a profile) from it.
//
// Records: AUXTRACE_INFO gives the trace sources; AUX, ITRACE_START,
// SWITCH(_CPU_WIDE), AUX_OUTPUT_HW_ID and AUXTRACE feed the trace blocks
// (trace_blocks.h); MMAP/MMAP2/COMM/FORK/KSYMBOL build the pipeline's
// machine model the decoder reads code through (a record it cannot take is
// a warning). EXIT is passed on but not applied to the model: the trace of
// a thread is often written after it exited, and its maps must still be
// found (simpleperf does the same).
//
// Decoding: the trace records (trace_records.h) cut the trace into blocks,
// and a block scheduler (block_scheduler.h) sends each block to a decode
// lane (decode_lane.h), which owns a decoder and the synthesizer (or
// profile), and writes the blocks' results in block order. With jobs > 1
// lanes run on jobs worker threads, with 1 on the calling thread, through
// the same code; either way the output is the same bytes:
//   - each block's samples (records or script lines, sample_output.h),
//     packet and error counts are kept in the block's job, and jobs are
//     written in block order; records passed through after a block wait
//     behind it;
//   - lanes read the pipeline's model const, and before a record changes
//     it, BeforeModelChange waits for every block submitted before it and
//     writes their results. So each block is decoded against the model as
//     it was when its AUXTRACE record was read, as with --jobs 1;
//   - decode errors are counted per block, and the first error of a source
//     is the first one in block order; binary warnings are sorted.
// Profiles (autofdo, bolt) keep nothing from block to block: each lane has
// its own profile, and the profiles are added up at the end
// (lane_profiles.h). OpenCSD's error log is quiet (opencsd_guard.h).
//
// With Format::kPerf, the output is the input without its AUX area records
// (AUXTRACE_INFO, AUXTRACE, AUXTRACE_ERROR, AUX, ITRACE_START,
// AUX_OUTPUT_HW_ID) and with the synthesized samples: event "instructions"
// (PERF_TYPE_HARDWARE) for i, "branches" for b, written in block order;
// sample time is the time of the block's AUX record. The other formats emit
// no records: script text goes to the text sink as blocks are written (or
// is kept for text()), a profile's text is made at End.
#ifndef PERFTK_CS_ETM_DECODE_TOOL_H_
#define PERFTK_CS_ETM_DECODE_TOOL_H_

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "base/warnings.h"
#include "cs_etm/binary_images.h"
#include "cs_etm/block_scheduler.h"
#include "cs_etm/decode_lane.h"
#include "cs_etm/decode_options.h"
#include "cs_etm/sample_output.h"
#include "cs_etm/trace_records.h"
#include "pipeline/tool.h"
#include "profile/profile.h"

namespace perftk::cs_etm {

class CsEtmDecodeTool : public pipeline::Tool {
 public:
  // What is skipped or lost goes to `warnings`, one line each, by End;
  // the warnings of binaries (found by whichever lane gets there first)
  // sorted, at End. `warnings` must outlive the tool.
  CsEtmDecodeTool(DecodeOptions options, base::WarningSink& warnings);
  ~CsEtmDecodeTool() override;

  std::optional<pipeline::ModelPolicy> model_policy() const override {
    return pipeline::ModelPolicy{.apply_exits = false, .bad_records_to = &warnings_};
  }
  absl::Status BeforeModelChange(const perf::Record& record, pipeline::RecordSink& out) override;
  // Stops the lanes, which read the pipeline's model and the input's trace.
  void Abandon() override;
  // The oldest block in flight whose trace is read from the mapped input.
  uint64_t OldestViewHeld() const override;
  absl::Status Begin(perf::Header& header) override;
  absl::Status Process(const perf::Record& record, pipeline::RecordSink& out) override;
  absl::Status End(pipeline::RecordSink& out, perf::FeatureSet& features) override;

  // Where kScript's text goes, block by block in block order, as the
  // blocks are written; without one it is kept for text(). Set before the
  // run.
  using TextSink = std::function<absl::Status(absl::string_view)>;
  void StreamTextTo(TextSink sink) { text_sink_ = std::move(sink); }
  // The text output of kAutoFdo and kBolt, and of kScript when it was not
  // streamed, complete after End.
  const std::string& text() const { return text_; }
  // kBolt: the recorded path of the binary the text is about, after End.
  const std::string& bolt_binary() const { return bolt_binary_; }
  // kAutoFdo, kBolt: every binary's counts as the format's text has them,
  // after End (profile_text.h writes the text from it).
  const profile::Profile& profile() const { return profile_; }
  // The profile itself, moved out: profile() is empty after.
  profile::Profile TakeProfile() { return std::exchange(profile_, profile::Profile()); }
  const DecodeStats& stats() const { return stats_; }
  bool saw_trace_info() const { return reader_ != nullptr && reader_->saw_trace_info(); }

 private:
  struct SourceErrors {
    uint64_t count = 0;
    std::string first;
  };

  // build_ids_ from the BUILD_ID feature (a warning when it is unreadable).
  void LoadBuildIds(const perf::Header& header);
  absl::Status SubmitBlocks(const perf::Record& auxtrace, pipeline::RecordSink& out);
  // A finished block, in block order: its counts to stats_ and errors_,
  // its samples to `out` (kPerf) or to the text.
  absl::Status WriteBlock(BlockJob& job, pipeline::RecordSink& out);

  const DecodeOptions options_;
  perf::BuildIdsByPath build_ids_;
  // Made by Begin; the scheduler last, as its lanes read the others.
  std::unique_ptr<TraceRecordReader> reader_;
  std::unique_ptr<BinaryImages> images_;
  std::unique_ptr<SampleEncoder> encoder_;
  std::unique_ptr<BlockScheduler> scheduler_;  // gone before the rest
  std::map<int64_t, SourceErrors> errors_;     // by source: -1 formatted, else raw cpu
  profile::Profile profile_;
  std::string text_;
  TextSink text_sink_;
  std::string bolt_binary_;
  DecodeStats stats_;
  base::WarningSink& warnings_;
};

}  // namespace perftk::cs_etm

#endif  // PERFTK_CS_ETM_DECODE_TOOL_H_
