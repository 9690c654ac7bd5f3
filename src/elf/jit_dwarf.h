// The DWARF 4 sections of a JIT ELF file (jit_elf_composer.h), enough for
// GNU and LLVM tools to find the source lines of its code:
//
//   .debug_line    one line program, one sequence per function with lines;
//   .debug_info    one compile unit over all the code (low pc, high pc as a
//                  size), with a subprogram per function with lines;
//   .debug_abbrev  the two abbreviations .debug_info uses.
//
// Each function makes one section's bytes, in the target's byte order and
// with addresses of its class. The .debug_info names its one abbreviation
// table (offset 0) and line program (offset 0).
#ifndef PERFTK_ELF_JIT_DWARF_H_
#define PERFTK_ELF_JIT_DWARF_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "elf/jit_code.h"

namespace perftk::elf {

// One row of a line sequence: `offset` counts from the sequence's address,
// `file` from 1 in DwarfUnit::files.
struct DwarfRow {
  uint64_t offset;
  uint32_t file;
  uint32_t line;
  uint32_t column;
};

// The lines of one function's code, rows by offset.
struct DwarfSequence {
  uint64_t address;
  uint64_t size;
  std::vector<DwarfRow> rows;
};

struct DwarfSubprogram {
  absl::string_view name;
  uint64_t address;
  uint64_t size;
};

// What the three sections describe; `files` is not empty (the compile unit
// takes the first one's name).
struct DwarfUnit {
  std::span<const std::string> files;
  uint64_t code_start = 0;
  uint64_t code_size = 0;
  std::span<const DwarfSequence> sequences;
  std::vector<DwarfSubprogram> subprograms;
};

std::vector<std::byte> DebugLineSection(const JitElfTarget& target, const DwarfUnit& unit);
std::vector<std::byte> DebugInfoSection(const JitElfTarget& target, const DwarfUnit& unit);
std::vector<std::byte> DebugAbbrevSection(const JitElfTarget& target);

}  // namespace perftk::elf

#endif  // PERFTK_ELF_JIT_DWARF_H_
