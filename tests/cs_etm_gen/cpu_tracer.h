// Runs threads on one CPU and writes the ETMv4 trace a trace unit would
// make of it, together with the ground truth (truth.h).
//
// A buffer starts with A-sync, Trace Info and (with timestamps) a
// Timestamp; then Enter names the running thread with an Address with
// Context packet. Run executes waypoints: direct branches become atoms,
// returns an E atom and a Long Address, ERET an E atom and an Address with
// Context (back to EL0), SVC an Exception packet and an Address with Context
// (EL1 vector). SwitchTo and TraceGap stop the flow (truth kSwitch, kTraceOn).
#ifndef PERFTK_TESTS_CS_ETM_GEN_CPU_TRACER_H_
#define PERFTK_TESTS_CS_ETM_GEN_CPU_TRACER_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "etm_encoder.h"
#include "simulator.h"
#include "truth.h"

namespace perftk::etm_gen {

inline uint8_t TraceIdOfCpu(uint32_t cpu) { return static_cast<uint8_t>(0x10 + 2 * cpu); }

enum class SwitchStyle {
  kAddressWithContext,  // one Address with Context packet
  kContextThenAddress,  // a Context packet, then a Long Address
};

class CpuTracer {
 public:
  // `timestamp_every`: a Timestamp packet after every that many waypoints
  // (0: none, and none at buffer starts either).
  CpuTracer(uint32_t cpu, uint32_t timestamp_every);

  void BeginBuffer(uint64_t time);
  // Names the thread the trace continues with (no break in the truth).
  void Enter(const ThreadState& thread);
  absl::Status Run(ThreadState& thread, int waypoints);
  // Another thread runs from here; the flow of the previous one ends.
  void SwitchTo(const ThreadState& thread, SwitchStyle style = SwitchStyle::kAddressWithContext);
  // Trace is off while `thread` runs `untraced` waypoints, then on again.
  absl::Status TraceGap(ThreadState& thread, int untraced);
  // The trace bytes of the buffer (unformatted).
  std::vector<uint8_t> EndBuffer();

  const CpuTruth& truth() const { return truth_; }
  // The truth so far, which the tracer forgets (long runs call it per buffer).
  CpuTruth TakeTruth();
  const EtmV4Encoder& encoder() const { return encoder_; }
  uint64_t waypoints() const { return waypoints_; }

 private:
  static EtmContext ContextOf(const ThreadState& thread);
  void EmitTimestamp();
  void Push(TruthEvent::Kind kind);

  const uint32_t timestamp_every_;
  EtmV4Encoder encoder_;
  CpuTruth truth_;
  uint64_t clock_ = 1000;
  uint64_t last_timestamp_ = 0;
  uint64_t waypoints_ = 0;
};

}  // namespace perftk::etm_gen

#endif  // PERFTK_TESTS_CS_ETM_GEN_CPU_TRACER_H_
