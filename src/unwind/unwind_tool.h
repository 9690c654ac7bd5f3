// The `perftk unwind` rewrite: samples that carry a copy of the user stack
// and the user registers (perf record --call-graph dwarf) get a plain call
// chain instead, unwound once with libdw as perf would unwind it each time
// it reads the recording.
//
// Records are expected in timestamp order (PipelineOptions::ordered), so a
// mapping is known before the samples that run in it. MMAP, MMAP2, COMM,
// FORK, EXIT and KSYMBOL build the machine model; each process unwinds with
// its own ProcessUnwinder, dropped when the process exits.
//
// Samples are unwound a window at a time (sample_windows.h) on an ordered
// parallel stage (pipeline/ordered_batches.h): `jobs - 1` threads and the
// caller, each lane with its own unwinders and open files, unwind the
// samples of closed windows while the caller goes on reading the next ones,
// and the stage writes the windows out in their order, each record read
// between two windows passed behind the first. A window ends before any
// record; before one that changes the pipeline's machine model the model
// waits until every window before it is unwound and written
// (BeforeModelChange), so every sample is unwound with the maps of its
// time. The output does not depend on the number of jobs. Memory: at most
// kSamplesInFlight samples (in at most kWindowsInFlight windows) and the
// stage's records wait, whatever the recording's size; a record that comes
// while nothing waits (every record of a recording without stack copies)
// passes straight through.
//
// A sample's new PERF_SAMPLE_CALLCHAIN is the kernel part as recorded (a
// recorded user part is replaced), then PERF_CONTEXT_USER and the unwound
// frames; a sample nothing was unwound for keeps the recorded chain. Unless
// `keep_stack`, REGS_USER and STACK_USER leave the samples and the attrs
// (sample_type, sample_regs_user, sample_stack_user); the attrs gain
// PERF_SAMPLE_CALLCHAIN and lose exclude_callchain_user. Other records are
// written as they came.
#ifndef PERFTK_UNWIND_UNWIND_TOOL_H_
#define PERFTK_UNWIND_UNWIND_TOOL_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "base/mutex.h"
#include "machine/machines.h"
#include "perf/header.h"
#include "perf/record.h"
#include "perf/sample.h"
#include "pipeline/ordered_batches.h"
#include "pipeline/tool.h"
#include "unwind/module_files.h"
#include "unwind/process_unwinder.h"
#include "unwind/registers.h"
#include "unwind/sample_windows.h"
#include "unwind/unwind_stats.h"

namespace perftk::unwind {

struct UnwindSettings {
  bool keep_stack = false;
  std::string symfs;  // prefix of every file name; empty for none
  // The most frames unwound per sample (perf's default --max-stack).
  size_t max_frames = 127;
  size_t jobs = 1;  // unwinding threads, the caller's included
  // Take the frames a sample shares with the thread's previous one over
  // from its unwinding (ProcessUnwinder); false unwinds every frame. The
  // output is the same either way.
  bool take_over_frames = true;
};

class UnwindTool : public pipeline::Tool {
 public:
  explicit UnwindTool(UnwindSettings settings = {});
  ~UnwindTool() override;

  // Processes are unwound with the pipeline's model of their maps.
  std::optional<pipeline::ModelPolicy> model_policy() const override {
    return pipeline::ModelPolicy{};
  }
  // Unwinds and writes every window before the model changes.
  absl::Status BeforeModelChange(const perf::Record& record, pipeline::RecordSink& out) override;
  absl::Status Begin(perf::Header& header) override;
  absl::Status Process(const perf::Record& record, pipeline::RecordSink& out) override;

  absl::Status End(pipeline::RecordSink& out, perf::FeatureSet& features) override;
  // Joins the workers (what they run finishes, what waits is dropped) and
  // drops every waiting window, with the stack copies they view.
  void Abandon() override;
  // A file-layout recording without stack copies: no attr can add them later.
  bool PassesAllThrough() const override { return passes_all_through_; }
  // The oldest sample whose stack copy waits to be read in the input.
  uint64_t OldestViewHeld() const override { return windows_.OldestViewHeld(); }

  UnwindStats stats() const;

 private:
  // One unwinding thread's own state.
  struct Lane {
    std::unique_ptr<ModuleFiles> files;
    absl::flat_hash_map<int32_t, std::unique_ptr<ProcessUnwinder>> unwinders;  // by pid
    UnwindStats stats;           // its counts of unwinding outcomes
    size_t build_ids_taken = 0;  // of build_ids_, handed to `files`
  };
  // Hands the lane's files the build ids met since it last looked.
  void TakeBuildIds(Lane& lane);
  // Windows end at every record, so many may be small; what they hold is
  // bounded by their samples.
  static constexpr size_t kWindowsInFlight = 64;
  static constexpr size_t kSamplesInFlight = 4 * SampleWindows::kMaxSamples;
  static constexpr size_t kSamplesPerTake = 32;  // a lane's share at a time

  absl::Status QueueSample(const perf::Record& record, pipeline::RecordSink& out);
  // Emits `record` behind the samples before it: the open window goes to
  // the stage first.
  absl::Status PassOn(const perf::Record& record, pipeline::RecordSink& out);
  // Hands the open window to the stage, which writes the windows done.
  absl::Status Flush(pipeline::RecordSink& out);
  // Whether no sample and no record waits.
  bool idle() const;
  // Unwinds every waiting window and writes it.
  absl::Status Drain(pipeline::RecordSink& out);
  absl::Status WriteOldestWindow(pipeline::RecordSink& out);
  void UnwindWindowPart(size_t lane, SampleWindow& window, size_t begin, size_t end);
  absl::Status WriteSample(const PendingSample& pending, pipeline::RecordSink& out);
  absl::Status RewriteHeaderAttr(const perf::Record& record, pipeline::RecordSink& out);
  absl::Status FollowMachine(const perf::Record& record, pipeline::RecordSink& out);
  // A pipe's ARCH feature comes as a record: the registers follow it.
  absl::Status FollowPipeFeature(const perf::Record& record, pipeline::RecordSink& out);
  // A HEADER_BUILD_ID record: the id binaries of that name are looked up by.
  void NoteBuildId(const perf::Record& record);
  // Replaces the user part of `sample`'s call chain with the unwound stack.
  // `stack` is the valid part of its stack copy.
  void UnwindSample(Lane& lane, const perf::SampleFormat& format, uint16_t cpumode,
                    base::Bytes stack, perf::Sample& sample) const;
  ProcessUnwinder* UnwinderFor(Lane& lane, uint16_t cpumode, int32_t pid) const;
  void ConvertAttr(perf::EventAttr& attr) const;
  absl::Status Fail(const perf::Record& record, const absl::Status& status) const;

  UnwindSettings settings_;
  absl::StatusOr<Arch> arch_;  // of the recording (ARCH feature), else the host's
  perf::EventList input_events_;
  perf::EventList output_events_;
  std::vector<Lane> lanes_;  // the stage's lanes, the caller's last
  // A pipe's HEADER_BUILD_ID records, as they come: each lane takes the new
  // ones before it unwinds (no drain: an id only helps find a file, so a
  // sample before the record that sees it is none the worse).
  base::Mutex build_ids_mu_;
  std::vector<std::pair<std::string, base::BuildId>> build_ids_ ABSL_GUARDED_BY(build_ids_mu_);
  std::atomic<size_t> build_ids_count_{0};
  SampleWindows windows_{kSamplesInFlight + SampleWindows::kMaxSamples};
  UnwindStats stats_;  // samples seen; the lanes count the outcomes
  // Whether an event has stack copies; while none has, samples pass through
  // as read (behind what the windows hold).
  bool any_stacks_ = false;
  bool passes_all_through_ = false;
  std::vector<std::byte> record_;  // the sample record being written
  // Last: stopped and joined before the windows they read go away.
  std::unique_ptr<pipeline::OrderedBatches> batches_;
};

}  // namespace perftk::unwind

#endif  // PERFTK_UNWIND_UNWIND_TOOL_H_
