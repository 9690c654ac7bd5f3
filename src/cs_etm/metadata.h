// The CoreSight part of PERF_RECORD_AUXTRACE_INFO (auxtrace_type 3): the
// header words and one block of trace-unit registers per CPU.
//
// Layout of the private words (perf's tools/perf/util/cs-etm.h):
//   [0] header version 0, 1 or 2; [1] (pmu_type << 32) | nr_cpus;
//   [2] snapshot flag; then nr_cpus blocks of
//   magic, cpu, [nr_params (version >= 1)], params...
// Version 0 blocks have a fixed parameter count per magic. From version 1,
// a block says how many parameters it has: the known ones are read, extra
// ones (a newer writer) are skipped. A block with an unknown magic, or fewer
// parameters than the decoder needs, is an error naming the block.
#ifndef PERFTK_CS_ETM_METADATA_H_
#define PERFTK_CS_ETM_METADATA_H_

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "absl/status/statusor.h"

namespace perftk::cs_etm {

inline constexpr uint32_t kAuxtraceCsEtm = 3;  // PERF_AUXTRACE_CS_ETM

inline constexpr uint64_t kMagicEtmV3 = 0x3030303030303030ULL;  // also PTM
inline constexpr uint64_t kMagicEtmV4 = 0x4040404040404040ULL;
inline constexpr uint64_t kMagicEte = 0x5050505050505050ULL;

// TRCTRACEIDR/ETMTRACEIDR bit telling that the real trace id comes from
// PERF_RECORD_AUX_OUTPUT_HW_ID (header version 2).
inline constexpr uint64_t kTraceIdUnusedFlag = 1ULL << 31;

enum class TraceProtocol { kEtmV3, kPtm, kEtmV4, kEte };

// Where the thread id of a PE_CONTEXT comes from.
enum class PidFormat {
  kNone,     // no context id traced
  kCtxtId,   // CONTEXTIDR_EL1 (context_id field)
  kCtxtId2,  // CONTEXTIDR_EL2 (vmid field), kernel running at EL2
};

// The registers of one CPU's trace unit. Unused registers are zero.
struct TraceSource {
  TraceProtocol protocol = TraceProtocol::kEtmV4;
  uint32_t cpu = 0;
  // ETMv4/ETE
  uint32_t trcconfigr = 0;
  uint32_t trctraceidr = 0;
  uint32_t trcidr0 = 0, trcidr1 = 0, trcidr2 = 0, trcidr8 = 0;
  uint32_t trcauthstatus = 0;
  uint32_t trcdevarch = 0;  // ETE only
  // ETMv3/PTM
  uint32_t etmcr = 0, etmtraceidr = 0, etmccer = 0, etmidr = 0;
  // Whether the metadata's trace id register holds the trace id (false when
  // it carries kTraceIdUnusedFlag and AUX_OUTPUT_HW_ID must supply it).
  bool trace_id_valid = true;

  // The 7-bit trace id in the metadata register.
  uint8_t trace_id() const;
  PidFormat pid_format() const;
};

struct CsEtmInfo {
  uint64_t version = 0;
  uint32_t pmu_type = 0;
  bool snapshot = false;
  std::vector<TraceSource> sources;  // in the order of the blocks

  const TraceSource* FindCpu(uint32_t cpu) const;
};

// Parses the private words of an AUXTRACE_INFO record of type kAuxtraceCsEtm.
absl::StatusOr<CsEtmInfo> ParseCsEtmInfo(std::span<const uint64_t> priv);

}  // namespace perftk::cs_etm

#endif  // PERFTK_CS_ETM_METADATA_H_
