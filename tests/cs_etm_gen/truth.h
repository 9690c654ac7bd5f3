// What really happened on one CPU's trace source, in trace order: the
// stretches of instructions each thread executed (with the exception level),
// the points where program flow does not continue (thread switch, trace
// off/on), and the AUX blocks the trace was cut into.
#ifndef PERFTK_TESTS_CS_ETM_GEN_TRUTH_H_
#define PERFTK_TESTS_CS_ETM_GEN_TRUTH_H_

#include <cstdint>
#include <vector>

namespace perftk::etm_gen {

struct TruthContext {
  int32_t pid = -1;
  int32_t tid = -1;
  int8_t el = 0;
  bool operator==(const TruthContext&) const = default;
};

struct TruthEvent {
  enum class Kind {
    kBlockStart,  // an AUX block begins (the decoder restarts): `time`
    kRange,       // [start, end) executed by `context`
    kSwitch,      // another thread runs from here: its flow does not continue
    kTraceOn,     // trace was off and is on again: a discontinuity
    kBlockEnd,    // the AUX block ends
  };
  Kind kind = Kind::kRange;
  uint64_t start = 0;
  uint64_t end = 0;
  uint32_t instructions = 0;
  TruthContext context;
  bool taken = false;         // left by a taken branch or an exception
  uint64_t cs_timestamp = 0;  // last CoreSight timestamp written before it (0: none)
  uint64_t time = 0;          // kBlockStart: perf time of the AUX record
};

struct CpuTruth {
  uint32_t cpu = 0;
  uint8_t trace_id = 0;
  std::vector<TruthEvent> events;
};

}  // namespace perftk::etm_gen

#endif  // PERFTK_TESTS_CS_ETM_GEN_TRUTH_H_
