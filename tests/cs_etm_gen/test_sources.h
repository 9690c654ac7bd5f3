// The trace units the fast decoder's tests decode for: an ETMv4.4 of an
// Armv8.3 core (TRCIDR1 0x4100f440), and an ETE, both with 32-bit context
// ids and 64-bit addresses, tracing context ids and timestamps (TRCCONFIGR
// 0xc1).
#ifndef PERFTK_TESTS_CS_ETM_GEN_TEST_SOURCES_H_
#define PERFTK_TESTS_CS_ETM_GEN_TEST_SOURCES_H_

#include <cstdint>

#include "cs_etm/metadata.h"

namespace perftk::cs_etm {

// That unit on `cpu` (trace id 0x10 + 2 x cpu), with a speculation depth
// of `spec_depth` (TRCIDR8) and the return stack on or off.
inline TraceSource EtmV44Source(uint32_t cpu = 0, uint32_t spec_depth = 0,
                                bool return_stack = false) {
  TraceSource source;
  source.protocol = TraceProtocol::kEtmV4;
  source.cpu = cpu;
  source.trcidr0 = 0x28000ea1;
  source.trcidr1 = 0x4100f440;
  source.trcidr2 = 0x00000488;
  source.trcidr8 = spec_depth;
  source.trcconfigr = 0xc1 | (return_stack ? 1u << 12 : 0);
  source.trctraceidr = 0x10 + 2 * cpu;
  return source;
}

// The ETE unit: 1.1 with timestamp markers (TRCIDR0.TSMARK), whose
// timestamps count only after a marker, or 1.0; transaction starts P0
// elements, or not with `commit_transactions` (TRCIDR0.COMMTRANS).
inline TraceSource EteSource(uint32_t cpu = 0, uint32_t spec_depth = 0, bool return_stack = false,
                             bool timestamp_markers = true, bool commit_transactions = false) {
  TraceSource source = EtmV44Source(cpu, spec_depth, return_stack);
  source.protocol = TraceProtocol::kEte;
  source.trcidr0 |= (timestamp_markers ? 1u << 23 : 0) | (commit_transactions ? 1u << 30 : 0);
  source.trcidr1 = 0x4100fff0;  // an ETE's version is in TRCDEVARCH
  source.trcdevarch = timestamp_markers ? 0x47715a13 : 0x47705a13;
  return source;
}

}  // namespace perftk::cs_etm

#endif  // PERFTK_TESTS_CS_ETM_GEN_TEST_SOURCES_H_
