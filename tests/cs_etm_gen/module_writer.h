// Writes a minimal arm64 kernel module: an ET_REL file laid out like a real
// `.ko` built for arm64 (compare vendor modules on Android): a placeholder
// `.plt` (NOBITS, SHF_ALLOC | SHF_EXECINSTR, 16-byte aligned, sized by the
// kernel at load time) before `.text`, `.text` with a large alignment, an
// `.init.text` the loader keeps apart, a short GNU build id note and a
// symbol table whose values are section offsets. So the module's memory
// layout (.text at the alignment past .plt) differs from its file layout
// (.text right after the ELF header): code read at "file offset = module
// offset" is wrong.
#ifndef PERFTK_TESTS_CS_ETM_GEN_MODULE_WRITER_H_
#define PERFTK_TESTS_CS_ETM_GEN_MODULE_WRITER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "a64.h"
#include "absl/status/status.h"

namespace perftk::etm_gen {

struct ModuleImage {
  std::vector<uint32_t> text;              // assembled at origin 0
  std::vector<Assembler::Symbol> symbols;  // offsets in .text
  std::string build_id;                    // raw bytes (8 for a short id)
  uint64_t text_alignment = 0x100;
  uint64_t calls_relocated = 0;  // set by BuildModule: the BLs left to the loader
  // Non-empty: DWARF 4 line tables and functions (debug_info.h) for .text,
  // at its section addresses (from 0), as a .ko built with -g carries them.
  std::string source_name;
};

// Where the kernel's module loader puts .text (kernel/module/main.c
// layout_sections): .plt (1 byte) at 0, then .text at its alignment.
inline uint64_t ModuleTextOffset(const ModuleImage& image) { return image.text_alignment; }

std::vector<uint8_t> BuildModule(ModuleImage& image);
absl::Status WriteModule(ModuleImage& image, const std::string& path);

// A kcore as /proc/kcore presents the kernel's memory: an ET_CORE file whose
// PT_LOADs put `bytes` at runtime address `address`.
struct CoreLoad {
  uint64_t address = 0;
  std::vector<uint8_t> bytes;
};
absl::Status WriteKcore(const std::vector<CoreLoad>& loads, const std::string& path);

}  // namespace perftk::etm_gen

#endif  // PERFTK_TESTS_CS_ETM_GEN_MODULE_WRITER_H_
