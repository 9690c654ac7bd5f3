// Turns decoded packets into perf's synthesized samples, with perf's
// --itrace semantics for CoreSight (tools/perf/util/cs-etm.c):
//
//  - instructions: every `period` instructions one sample, at the address of
//    the instruction that completes the period; at a discontinuity or the end
//    of a block, when l is on, one more sample at the last executed
//    instruction with the instructions counted since the last sample
//    (perf 6.1 also writes, at the trace-on that starts the next block, a
//    period-0 copy of that end-of-block sample, from a stale packet; perftk
//    does not: a branch stack counted twice weighs double in perf2bolt);
//  - every N taken branches (perftk's --every-taken, instead of every N
//    instructions): one sample at the target of each Nth taken branch, and
//    at a discontinuity or block end one more when a branch was taken since
//    the last; with l, a stack holds the branches since the previous sample
//    plus the one that sample ended on (at most the l size). With N below the
//    l size, each taken range (from one branch's target to the next branch)
//    is in exactly one stack, as AutoFDO's --profiler=perf counts them: a
//    profile without the bias of sampling by instructions, where a stack of
//    N branches spans more code where branches are sparse;
//  - last branch: each taken branch from one range to the next is pushed on a
//    ring of N entries (newest first in a sample); a discontinuity empties
//    it, the end of a block does not;
//  - branches: one sample per taken branch (ip = branch, addr = target) and
//    per trace start (ip 0) and trace end (addr 0).
//
// Attribution: a sample takes the pid/tid/EL stamped on the packet it is
// made from (the range holding its ip, or for branch samples the range the
// branch left). A change of thread on a trace source ends its flow like a
// discontinuity (pending instructions are flushed to the old thread and the
// ring emptied), so no branch stack ever mixes the branches of two threads
// and no branch sample crosses threads.
//
// State is per trace id and lives in a TraceFlows, which may be shared by
// the synthesizers of several lanes (see TraceFlows); time and CPU of
// samples are those of the block.
#ifndef PERFTK_CS_ETM_SYNTHESIZER_H_
#define PERFTK_CS_ETM_SYNTHESIZER_H_

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "cs_etm/decoder.h"
#include "cs_etm/frame_scan.h"
#include "cs_etm/itrace.h"
#include "cs_etm/packet.h"
#include "perf/sample.h"

namespace perftk::cs_etm {

struct SynthesizedSample {
  enum class Kind { kInstruction, kBranch };
  Kind kind = Kind::kInstruction;
  PacketContext context;
  uint32_t cpu = 0;
  uint64_t time = 0;
  uint64_t ip = 0;
  uint64_t addr = 0;  // branch samples: the target
  uint64_t period = 0;
  std::vector<perf::BranchEntry> branches;  // instruction samples with l: newest first
};

class SampleOutput {
 public:
  virtual ~SampleOutput() = default;
  virtual absl::Status Emit(const SynthesizedSample& sample) = 0;
};

// perf_branch_entry flags of a synthesized entry: predicted, not mispredicted.
inline constexpr uint64_t kBranchFlagPredicted = 1u << 1;

// The flow of each trace id that carries from one block to the next: the
// ring of last branches and the instructions counted toward the next sample.
// One id's flow must be synthesized by one block at a time, in block order;
// blocks of disjoint ids may use one TraceFlows from different threads.
class TraceFlows {
 public:
  TraceFlows();
  ~TraceFlows();
  TraceFlows(const TraceFlows&) = delete;
  TraceFlows& operator=(const TraceFlows&) = delete;

 private:
  friend class SampleSynthesizer;
  struct State;
  std::array<std::unique_ptr<State>, 256> states_;  // by trace id
};

class SampleSynthesizer : public PacketSink {
 public:
  // `cpu_of_trace_id` gives the CPU of each trace source; `environment`
  // sizes T32 instructions.
  SampleSynthesizer(const ItraceOptions& options, std::map<uint8_t, uint32_t> cpu_of_trace_id,
                    DecodeEnvironment& environment, SampleOutput& output);
  ~SampleSynthesizer() override;

  // Time and CPU (kNoCpu: from the trace id) of the samples of the next
  // block, whose flows are the synthesizer's own.
  void BeginBlock(uint32_t cpu, uint64_t time);
  // The same with flows kept in `flows`, for a block that feeds only the
  // trace ids in `ids` (nullopt: any). Of other ids, discontinuities (the
  // end of trace of decoders that got no data) are skipped and any other
  // packet is an error; the end of the block touches only those ids' flows.
  void BeginBlock(uint32_t cpu, uint64_t time, TraceFlows& flows, std::optional<TraceIdSet> ids);
  absl::Status Consume(std::span<const Packet> packets) override;
  // A replayed path that completes no sample is counted in one go.
  bool TakesPaths() const override { return true; }
  absl::Status EndBlock() override;

  uint64_t samples_emitted() const { return emitted_; }

 private:
  using State = TraceFlows::State;
  State& StateOf(uint8_t trace_id) {
    return last_state_ != nullptr && last_id_ == trace_id ? *last_state_ : NewStateOf(trace_id);
  }
  State& NewStateOf(uint8_t trace_id);
  // One packet of the trace, of `state`'s flow.
  absl::Status OnPacket(State& state, const Packet& packet);
  // A kPath packet: when its ranges complete no sample (and no branch is
  // sampled), their branches go on the ring and their instructions are
  // counted without a copy of each; else packet by packet.
  absl::Status OnPath(State& state, const Packet& path);
  // Whether `packet` follows a range that ended in a taken branch; that
  // branch then goes on the ring (with l).
  bool EnterRange(State& state, const Packet& packet);
  // A range that completes no sample, counted; false (nothing done) for
  // one that OnRange must see.
  bool CountRange(State& state, const Packet& packet);
  absl::Status OnRange(State& state, const Packet& packet);
  absl::Status Flush(State& state, bool reset_ring);
  // A sample of `kind` stamped with the packet's context, the block's cpu and time.
  SynthesizedSample NewSample(const State& state, SynthesizedSample::Kind kind,
                              const Packet& packet) const;
  // An instruction sample at `ip` of `at` with the newest `max_branches` of
  // the ring (when l is on).
  absl::Status EmitInstruction(State& state, const Packet& at, uint64_t ip, uint64_t period,
                               size_t max_branches = SIZE_MAX);
  // The sample that ends a flow (discontinuity, change of thread, block end)
  // at the last instruction of the previous range, when l and i are on.
  absl::Status EmitFlowEnd(State& state);
  // The samples of the periods `packet` completes, `before` instructions
  // having been counted before it.
  absl::Status EmitPeriodSamples(State& state, const Packet& packet, uint64_t before);
  absl::Status EmitBranch(State& state, const Packet& from_packet, uint64_t from, uint64_t to);
  void PushBranch(State& state, uint64_t from, uint64_t to);
  uint64_t AddressOfInstruction(const Packet& packet, uint64_t index);

  const ItraceOptions options_;
  const std::map<uint8_t, uint32_t> cpu_of_trace_id_;
  DecodeEnvironment& environment_;
  SampleOutput& output_;
  TraceFlows own_flows_;
  TraceFlows* flows_ = &own_flows_;      // of the current block
  std::optional<TraceIdSet> block_ids_;  // of the current block; nullopt: any
  State* last_state_ = nullptr;          // StateOf's last answer, in flows_
  uint8_t last_id_ = 0;                  // its trace id
  uint32_t block_cpu_ = 0xffffffffu;
  uint64_t block_time_ = 0;
  uint64_t emitted_ = 0;
  std::vector<Packet> replayed_;  // OnPath's packets of a path, reused
};

}  // namespace perftk::cs_etm

#endif  // PERFTK_CS_ETM_SYNTHESIZER_H_
