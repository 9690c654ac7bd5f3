// The ETMv4 trace unit the fast decoder's tests decode for: an ETMv4.4 of
// an Armv8.3 core (TRCIDR1 0x4100f440) with 32-bit context ids and 64-bit
// addresses, tracing context ids and timestamps (TRCCONFIGR 0xc1).
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

}  // namespace perftk::cs_etm

#endif  // PERFTK_TESTS_CS_ETM_GEN_TEST_SOURCES_H_
