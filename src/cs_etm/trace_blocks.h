// Gathers the trace of a recording into decodable blocks.
//
// The trace comes in PERF_RECORD_AUXTRACE records (a header naming the AUX
// buffer index, CPU or thread, and the buffer offset, then the bytes). A
// PERF_RECORD_AUX record says which part of a buffer the kernel filled in one
// go, and how (flags: truncated, partial, collision, raw vs formatted). As in
// perf with an AUXTRACE index, one block is the part of a buffer one AUX
// record describes; the decoder is reset before each block, because
// consecutive blocks need not be contiguous trace.
//
// AUX records come before the AUXTRACE that holds their data (the kernel
// writes the record before it publishes the data). A buffer for which no AUX
// record is pending (a recording without AUX records) is one block, taken as
// formatted unless an earlier AUX record of the same queue said raw. AUX
// records whose data never comes are reported by Finish.
//
// Queues are keyed by CPU in CPU-wide recordings and by thread in per-thread
// ones (AUXTRACE cpu == -1).
#ifndef PERFTK_CS_ETM_TRACE_BLOCKS_H_
#define PERFTK_CS_ETM_TRACE_BLOCKS_H_

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "base/bytes.h"

namespace perftk::cs_etm {

inline constexpr uint64_t kAuxFlagTruncated = 0x01;
inline constexpr uint64_t kAuxFlagOverwrite = 0x02;
inline constexpr uint64_t kAuxFlagPartial = 0x04;
inline constexpr uint64_t kAuxFlagCollision = 0x08;
inline constexpr uint64_t kAuxFlagPmuFormatMask = 0xff00;
inline constexpr uint64_t kAuxFlagCoresightRaw = 0x0100;

inline constexpr uint32_t kNoCpu = 0xffffffffu;

// What a PERF_RECORD_AUX and its sample_id say.
struct AuxFragment {
  uint64_t offset = 0;
  uint64_t size = 0;
  uint64_t flags = 0;
  uint32_t cpu = kNoCpu;  // from the sample_id trailer, kNoCpu if absent
  uint32_t tid = 0;
  uint64_t time = 0;
  uint64_t file_offset = 0;  // of the AUX record, for messages
  // The thread last announced on this CPU (ITRACE_START, SWITCH) when the
  // AUX record was read: the thread to assume until the trace says otherwise.
  int32_t seed_pid = -1;
  int32_t seed_tid = -1;
};

// What a PERF_RECORD_AUXTRACE header says.
struct AuxtraceBuffer {
  uint64_t offset = 0;
  uint64_t size = 0;
  uint32_t idx = 0;
  uint32_t tid = 0;
  uint32_t cpu = kNoCpu;
  uint64_t file_offset = 0;  // of the AUXTRACE record
};

// One stretch of trace to decode from a reset decoder.
struct TraceBlock {
  uint32_t cpu = kNoCpu;
  uint32_t tid = 0;  // per-thread recordings: the traced thread
  bool formatted = true;
  uint64_t flags = 0;  // AUX flags (0 without an AUX record)
  uint64_t time = 0;   // of the AUX record; 0 without one
  uint64_t aux_offset = 0;
  uint64_t file_offset = 0;  // of the first trace byte in the input
  int32_t seed_pid = -1;
  int32_t seed_tid = -1;
  base::Bytes data;  // valid while the AUXTRACE payload it came from is
};

class TraceBlockGatherer {
 public:
  void AddAux(const AuxFragment& fragment);
  // The blocks of `payload` (AUXTRACE's data), in trace order.
  std::vector<TraceBlock> AddAuxtrace(const AuxtraceBuffer& buffer, base::Bytes payload);
  // One line per AUX record whose data never came, and per stretch of
  // trace that an AUX record marked truncated or collided.
  std::vector<std::string> Finish();

  uint64_t missing_aux_records() const { return missing_; }

 private:
  // Whether `fragment` belongs to the queue of `buffer`.
  static bool SameQueue(const AuxFragment& fragment, const AuxtraceBuffer& buffer);

  std::deque<AuxFragment> pending_;      // in arrival order
  std::map<uint32_t, bool> raw_by_cpu_;  // the format the last AUX record of a CPU gave
  std::vector<std::string> notes_;
  uint64_t missing_ = 0;
};

}  // namespace perftk::cs_etm

#endif  // PERFTK_CS_ETM_TRACE_BLOCKS_H_
