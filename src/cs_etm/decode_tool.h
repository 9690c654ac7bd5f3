// `perftk cs-etm-decode` as a pipeline Tool: reads a CoreSight recording,
// decodes its trace and synthesizes samples (or a profile) from it.
//
// Records: AUXTRACE_INFO gives the trace sources; AUX, ITRACE_START,
// SWITCH(_CPU_WIDE), AUX_OUTPUT_HW_ID and AUXTRACE feed the trace blocks
// (trace_blocks.h); MMAP/MMAP2/COMM/FORK/KSYMBOL build the machine model the
// decoder reads code through. EXIT is passed on but not applied to the model:
// the trace of a thread is often written after it exited, and its maps must
// still be found (simpleperf does the same).
//
// Decoding: each block is decoded on a lane, which owns a decoder and the
// synthesizer (or profile). Each block ends with an end of trace, which
// empties the ring of last branches and, with l and i, flushes the
// instruction count into a sample; so a block starts from empty flows, and
// any block may go to any lane (block number modulo jobs), unless samples
// are synthesized with i and without l. Then the count toward the next
// sample carries from block to block, per trace id, in a TraceFlows per
// source shared by the lanes, and the lanes are:
//   - raw trace (TRBE): one lane per CPU;
//   - formatted trace: one lane per trace id. One AUX buffer may hold the
//     trace of several CPUs, so each block's frames are scanned for the ids
//     they switch to (frame_scan.h). A block of one id goes to that id's
//     lane; a block of several ids (or of frames the scan cannot read) goes
//     to its first id's lane (or a shared one) once the blocks of its other
//     ids on other lanes are done. So each id's flow sees its blocks one at
//     a time, in order, and blocks of different ids decode in parallel.
// Profiles (autofdo, bolt) keep nothing from block to block: each lane has
// its own profile, and the profiles are added up at the end.
//
// With jobs > 1 lanes run on jobs worker threads (lane_pool.h); with 1 they
// run on the calling thread, through the same code. Either way the output
// is the same bytes:
//   - each block's samples (records or script lines), packet and error
//     counts are buffered in the block's result, and results are written in
//     block order; records passed through after a block wait behind it;
//   - the machine model is read by workers and changed only by the caller,
//     and only when no block is in flight: a record that changes the model
//     first waits for every block submitted before it and writes their
//     results. So each block is decoded against the model as it was when
//     its AUXTRACE record was read, as with --jobs 1;
//   - at most 2 x jobs blocks (each with a copy of its trace) are in flight,
//     and at most 4096 records wait behind them (then all blocks are waited
//     for);
//   - a lane forgets its cached address space when the model changed since
//     its last block;
//   - decode errors are counted per block, and the first error of a source
//     is the first one in block order; binary warnings are sorted.
// Decode trees are made and destroyed under OpenCSD's setup lock, and
// OpenCSD's error log is quiet (opencsd_guard.h).
//
// With Format::kPerf, the output is the input without its AUX area records
// (AUXTRACE_INFO, AUXTRACE, AUXTRACE_ERROR, AUX, ITRACE_START,
// AUX_OUTPUT_HW_ID) and with the synthesized samples: event "instructions"
// (PERF_TYPE_HARDWARE) for i, "branches" for b, written in block order;
// sample time is the time of the block's AUX record. The other formats emit
// nothing and keep what Text() returns.
#ifndef PERFTK_CS_ETM_DECODE_TOOL_H_
#define PERFTK_CS_ETM_DECODE_TOOL_H_

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "cs_etm/binary_images.h"
#include "cs_etm/decoder.h"
#include "cs_etm/frame_scan.h"
#include "cs_etm/itrace.h"
#include "cs_etm/metadata.h"
#include "cs_etm/profile.h"
#include "cs_etm/synthesizer.h"
#include "cs_etm/trace_blocks.h"
#include "inject/tool.h"
#include "machine/machines.h"
#include "profile/profile.h"

namespace perftk::cs_etm {

enum class OutputFormat { kPerf, kAutoFdo, kBolt, kScript };

struct DecodeOptions {
  ItraceOptions itrace;
  OutputFormat format = OutputFormat::kPerf;
  std::string symfs;
  // The kernel image: a vmlinux, or a kcore file (binary_images.h).
  std::string vmlinux;
  std::string kcore;
  // Packets the decoder hands over per OpenCSD WAIT.
  size_t packet_batch = TraceDecoder::kDefaultBatchSize;
  // Decode threads; 1 decodes on the calling thread.
  int jobs = 1;
  // kBolt, kAutoFdo: the binary whose profile is written, by recorded path
  // or file name. Empty: for kBolt the only binary the trace ran in (several
  // are an error), for kAutoFdo every binary.
  std::string dso;
  // kBolt, kAutoFdo: false keeps only profile(), for a caller that adds up
  // several recordings and writes the text itself.
  bool profile_text = true;
};

struct DecodeStats {
  uint64_t blocks = 0;
  uint64_t trace_bytes = 0;
  uint64_t packets = 0;
  uint64_t samples = 0;
  uint64_t instruction_samples = 0;
  uint64_t branch_samples = 0;
  uint64_t decoder_waits = 0;
};

class LanePool;

class CsEtmDecodeTool : public Tool {
 public:
  explicit CsEtmDecodeTool(DecodeOptions options);
  ~CsEtmDecodeTool() override;

  absl::Status Begin(Header& header) override;
  absl::Status Process(const Record& record, RecordSink& out) override;
  absl::Status End(RecordSink& out, FeatureSet& features) override;

  // The text output of kAutoFdo, kBolt and kScript, complete after End.
  const std::string& text() const { return text_; }
  // kBolt: the recorded path of the binary the text is about, after End.
  const std::string& bolt_binary() const { return bolt_binary_; }
  // kAutoFdo, kBolt: every binary's counts as the format's text has them,
  // after End (profile_text.h writes the text from it).
  const profile::Profile& profile() const { return profile_; }
  const DecodeStats& stats() const { return stats_; }
  // Things that were skipped or lost, one line each, complete after End.
  const std::vector<std::string>& warnings() const { return warnings_; }
  bool saw_trace_info() const { return info_.has_value(); }

 private:
  class Lane;
  struct Setup;
  struct Job;
  struct Slot;
  struct SourceErrors {
    uint64_t count = 0;
    std::string first;
  };

  absl::Status OnAuxtraceInfo(const Record& record);
  absl::Status OnAux(const Record& record);
  absl::Status OnAuxtrace(const Record& record);
  void OnItraceStart(const Record& record);
  void OnSwitch(const Record& record);
  void OnHwId(const Record& record);
  // A new decode setup from info_ and trace_ids_ (decoders are remade).
  void RenewSetup();
  absl::Status SubmitBlock(const TraceBlock& block);
  // The lane of a formatted block for sample synthesis, after waiting for
  // the blocks on other lanes that feed the same trace ids; sets job.ids.
  uint64_t FormattedLaneFor(Job& job);
  // Writes, in order, the results of the finished blocks at the front and
  // the records behind them; waits for the oldest blocks while more than
  // `max_in_flight` are in flight (0: waits for all).
  absl::Status Flush(size_t max_in_flight);
  absl::Status WriteResult(Job& job);
  std::optional<SampleId> SampleIdOf(const Record& record) const;
  absl::Status AddSynthesizedEvents(Header& header);
  // The PERF_RECORD_SAMPLE of a synthesized sample (kPerf). Thread-safe.
  absl::StatusOr<std::vector<std::byte>> SampleRecord(const SynthesizedSample& sample) const;

  const DecodeOptions options_;
  Header header_;          // the input's header
  EventList output_events_;  // perf output: the events written
  std::optional<CsEtmInfo> info_;
  std::map<uint32_t, uint8_t> trace_ids_;  // by cpu
  std::shared_ptr<const Setup> setup_;
  uint64_t setup_generation_ = 0;
  uint64_t model_generation_ = 0;  // counts records applied to machines_
  std::map<uint32_t, std::pair<int32_t, int32_t>> seeds_;  // cpu -> (pid, tid)
  machine::Machines machines_;
  std::unique_ptr<BinaryImages> images_;
  TraceBlockGatherer gatherer_;
  std::map<uint64_t, std::unique_ptr<Lane>> lanes_;
  // Lane keys of formatted trace: kFormattedLanes + trace id, or + the
  // shared lane for blocks of several ids.
  static constexpr uint64_t kFormattedLanes = uint64_t{1} << 40;
  static constexpr uint64_t kSharedFormattedLane = 256;
  std::map<int64_t, std::unique_ptr<TraceFlows>> flows_;  // by source
  // The lane and ticket of the last formatted block submitted per trace id.
  std::array<std::pair<uint64_t, uint64_t>, 256> last_use_of_id_{};
  std::unique_ptr<LanePool> pool_;  // after lanes_: joined before they go
  std::deque<Slot> slots_;          // blocks in flight and records behind them
  size_t blocks_in_flight_ = 0;
  uint64_t next_block_ = 0;
  std::map<int64_t, SourceErrors> errors_;  // by source: -1 formatted, else raw cpu
  RecordSink* sink_ = nullptr;
  // perf output: the synthesized events.
  std::optional<size_t> instructions_event_;
  std::optional<size_t> branches_event_;
  bool changed_input_attrs_ = false;
  std::map<std::string, std::string> build_ids_;
  profile::Profile profile_;
  std::string text_;
  std::string bolt_binary_;
  DecodeStats stats_;
  std::vector<std::string> warnings_;
};

}  // namespace perftk::cs_etm

#endif  // PERFTK_CS_ETM_DECODE_TOOL_H_
