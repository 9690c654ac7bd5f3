// DWARF 4 debug information for hand-assembled code, enough for AutoFDO's
// create_llvm_prof to name functions and place samples on source lines:
// the code is a listing with one line per instruction (word i of the code
// is line i + 1 of `source_name`), one compile unit covering the code, and
// one DW_TAG_subprogram per function symbol (name, low/high pc, decl_line =
// the line of its first instruction). Addresses are link addresses.
//
// Sections: .debug_abbrev, .debug_info (forms string, data1/2/4/8, addr,
// sec_offset, flag_present; no .debug_str) and .debug_line (version 4, one
// sequence, a row per instruction).
#ifndef PERFTK_TESTS_CS_ETM_GEN_DEBUG_INFO_H_
#define PERFTK_TESTS_CS_ETM_GEN_DEBUG_INFO_H_

#include <cstdint>
#include <string>
#include <vector>

#include "a64.h"

namespace perftk::etm_gen {

struct DebugSections {
  std::vector<uint8_t> abbrev;
  std::vector<uint8_t> info;
  std::vector<uint8_t> line;
};

// `text_address`: link address of the first word; `words`: how many there are.
DebugSections BuildDebugSections(const std::string& source_name, uint64_t text_address,
                                 size_t words, const std::vector<Assembler::Symbol>& functions);

// The source line of the instruction at link address `address`.
inline uint32_t LineOf(uint64_t text_address, uint64_t address) {
  return static_cast<uint32_t>((address - text_address) / 4 + 1);
}

}  // namespace perftk::etm_gen

#endif  // PERFTK_TESTS_CS_ETM_GEN_DEBUG_INFO_H_
