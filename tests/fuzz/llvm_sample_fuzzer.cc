// libFuzzer target: any bytes as the binary whose DWARF --format=llvm-sample
// reads (cs_etm/dwarf_source_map.h), then the LLVM sample profile of a
// trace that ran one instruction in every 64 bytes of its first 256 KiB.
// Seeded with small ELF files with DWARF (scripts/test.sh makes them).
// Errors are fine; crashes, sanitizer reports, hangs, aborts and memory
// past run.sh's -rss_limit_mb are not. Issue 30's D2 lived here: one byte
// of DW_AT_high_pc made the profile fill in 256 GiB of addresses.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "cs_etm/dwarf_source_map.h"
#include "fuzz_file.h"
#include "profile/llvm_sample.h"
#include "profile/profile.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input = perftk::fuzz::AsFile(data, size);
  if (input.empty()) return 0;
  absl::StatusOr<std::unique_ptr<perftk::cs_etm::DwarfSourceMap>> map =
      perftk::cs_etm::DwarfSourceMap::Open(input);
  if (!map.ok()) return 0;
  perftk::profile::BinaryCounts counts;
  for (uint64_t offset = 0; offset < (256u << 10); offset += 64) {
    counts.ranges[{offset, offset}] = 1;
  }
  (void)perftk::profile::LlvmSampleText(counts, (*map)->first_load(), **map);
  return 0;
}
