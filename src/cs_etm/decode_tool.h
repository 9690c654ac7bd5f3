// `perftk cs-etm-decode` as a pipeline Tool: reads a CoreSight recording,
// decodes its trace and synthesizes samples (or a profile) from it.
//
// Records: AUXTRACE_INFO gives the trace sources; AUX, ITRACE_START,
// SWITCH(_CPU_WIDE), AUX_OUTPUT_HW_ID and AUXTRACE feed the trace blocks
// (trace_blocks.h); MMAP/MMAP2/COMM/FORK/KSYMBOL build the machine model the
// decoder reads code through. EXIT is passed on but not applied to the model:
// the trace of a thread is often written after it exited, and its maps must
// still be found (simpleperf does the same). Each block is decoded when its
// data arrives.
//
// With Format::kPerf, the output is the input without its AUX area records
// (AUXTRACE_INFO, AUXTRACE, AUXTRACE_ERROR, AUX, ITRACE_START,
// AUX_OUTPUT_HW_ID) and with the synthesized samples: event "instructions"
// (PERF_TYPE_HARDWARE) for i, "branches" for b, written as each block is
// decoded; sample time is the time of the block's AUX record. The other
// formats emit nothing and keep what Text() returns.
#ifndef PERFTK_CS_ETM_DECODE_TOOL_H_
#define PERFTK_CS_ETM_DECODE_TOOL_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "cs_etm/binary_images.h"
#include "cs_etm/decoder.h"
#include "cs_etm/itrace.h"
#include "cs_etm/metadata.h"
#include "cs_etm/profile.h"
#include "cs_etm/synthesizer.h"
#include "cs_etm/trace_blocks.h"
#include "inject/tool.h"
#include "machine/machines.h"

namespace perftk::cs_etm {

enum class OutputFormat { kPerf, kAutoFdo, kBolt, kScript };

struct DecodeOptions {
  ItraceOptions itrace;
  OutputFormat format = OutputFormat::kPerf;
  std::string symfs;
  // Packets the decoder hands over per OpenCSD WAIT.
  size_t packet_batch = TraceDecoder::kDefaultBatchSize;
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

// The decode environment, code locator and sample output of its own parts.
class CsEtmDecodeTool : public Tool, public DecodeEnvironment, public CodeLocator,
                        public SampleOutput {
 public:
  explicit CsEtmDecodeTool(DecodeOptions options);
  ~CsEtmDecodeTool() override;

  absl::Status Begin(Header& header) override;
  absl::Status Process(const Record& record, RecordSink& out) override;
  absl::Status End(RecordSink& out, FeatureSet& features) override;

  // The text output of kAutoFdo, kBolt and kScript, complete after End.
  const std::string& text() const { return text_; }
  const DecodeStats& stats() const { return stats_; }
  // Things that were skipped or lost, one line each, complete after End.
  const std::vector<std::string>& warnings() const { return warnings_; }
  bool saw_trace_info() const { return info_.has_value(); }

 private:
  class PacketTee;

  // DecodeEnvironment
  int32_t PidOf(int32_t tid) override;
  uint32_t ReadCode(const PacketContext& context, uint64_t address, uint32_t size,
                    uint8_t* out) override;
  // CodeLocator
  std::optional<CodeLocation> Locate(const PacketContext& context, uint64_t address) override;
  std::optional<uint64_t> DirectBranchTarget(const PacketContext& context, uint64_t address,
                                             Isa isa) override;
  // SampleOutput
  absl::Status Emit(const SynthesizedSample& sample) override;

  std::optional<machine::Map> FindMap(const PacketContext& context, uint64_t address);
  absl::Status OnAuxtraceInfo(const Record& record);
  absl::Status OnAux(const Record& record);
  absl::Status OnAuxtrace(const Record& record);
  void OnItraceStart(const Record& record);
  void OnSwitch(const Record& record);
  void OnHwId(const Record& record);
  absl::Status DecodeBlock(const TraceBlock& block);
  absl::StatusOr<TraceDecoder*> DecoderFor(const TraceBlock& block);
  std::optional<SampleId> SampleIdOf(const Record& record) const;
  absl::Status AddSynthesizedEvents(Header& header);
  void AppendScriptLine(const SynthesizedSample& sample);

  const DecodeOptions options_;
  Header header_;          // the input's header
  EventList output_events_;  // perf output: the events written
  std::optional<CsEtmInfo> info_;
  std::map<uint32_t, uint8_t> trace_ids_;  // by cpu
  std::map<uint32_t, std::pair<int32_t, int32_t>> seeds_;  // cpu -> (pid, tid)
  machine::Machines machines_;
  std::unique_ptr<BinaryImages> images_;
  TraceBlockGatherer gatherer_;
  std::map<int64_t, std::unique_ptr<TraceDecoder>> decoders_;  // -1: formatted; else raw cpu
  std::unique_ptr<SampleSynthesizer> synthesizer_;
  std::unique_ptr<BranchProfile> profile_;
  std::unique_ptr<PacketTee> tee_;
  RecordSink* sink_ = nullptr;
  // perf output: the synthesized events.
  std::optional<size_t> instructions_event_;
  std::optional<size_t> branches_event_;
  bool changed_input_attrs_ = false;
  std::map<std::string, std::string> build_ids_;
  std::string text_;
  DecodeStats stats_;
  std::vector<std::string> warnings_;
  // Per-thread user maps cache for ReadCode.
  int32_t cached_pid_ = -2;
  std::shared_ptr<machine::Maps> cached_maps_;
  machine::MapsCache maps_cache_;
  machine::MapsCache kernel_cache_;
};

}  // namespace perftk::cs_etm

#endif  // PERFTK_CS_ETM_DECODE_TOOL_H_
