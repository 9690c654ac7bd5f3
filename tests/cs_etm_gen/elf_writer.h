// Writes a minimal AArch64 ELF file around assembled code: ELF header, one
// PT_LOAD (r-x) mapping the file from offset 0 at `link_base`, the code at
// file offset kTextOffset (so link address = link_base + file offset), and
// .text, .symtab, .strtab, .shstrtab sections so tools can name functions;
// with `source_name`, also .debug_abbrev, .debug_info and .debug_line
// (debug_info.h) so tools can place code on source lines.
// With a `text_vaddr_delta`, the code's virtual addresses are its file
// offsets + link_base + the delta, as lld lays out a binary (.text at file
// offset 0x35c, vaddr 0x1035c): a first PT_LOAD (r) maps the headers, a
// second (r-x) the code; symbols and DWARF give the virtual addresses.
#ifndef PERFTK_TESTS_CS_ETM_GEN_ELF_WRITER_H_
#define PERFTK_TESTS_CS_ETM_GEN_ELF_WRITER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "a64.h"
#include "absl/status/status.h"

namespace perftk::etm_gen {

inline constexpr uint64_t kTextOffset = 0x1000;

struct ElfImage {
  bool shared_object = true;   // ET_DYN, else ET_EXEC
  uint64_t link_base = 0;      // the address of file offset 0
  std::vector<uint32_t> code;  // at link_base + kTextOffset
  std::vector<Assembler::Symbol> symbols;
  std::string source_name;  // empty: no debug information
  uint64_t text_vaddr_delta = 0;
  std::string build_id;  // raw bytes; non-empty: a .note.gnu.build-id section
};

// The bytes of the file.
std::vector<uint8_t> BuildElf(const ElfImage& image);
// Writes BuildElf(image) to `path`; the error names the path.
absl::Status WriteElf(const ElfImage& image, const std::string& path);

}  // namespace perftk::etm_gen

#endif  // PERFTK_TESTS_CS_ETM_GEN_ELF_WRITER_H_
