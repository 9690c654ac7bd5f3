// What the ELF files for JIT code (jit_elf_writer.h) are made of: the
// target they are for, the functions in them and those functions' source
// lines.
#ifndef PERFTK_ELF_JIT_CODE_H_
#define PERFTK_ELF_JIT_CODE_H_

#include <elf.h>

#include <cstdint>
#include <span>

#include "absl/strings/string_view.h"
#include "base/bytes.h"

namespace perftk::elf {

struct JitElfTarget {
  uint16_t machine = 62;  // EM_X86_64
  bool is_64 = true;
  bool big_endian = false;

  // The class is guessed from the machine (EM_386, EM_ARM and EM_PPC are
  // 32-bit, everything else 64-bit).
  static JitElfTarget ForMachine(uint32_t elf_machine, bool big_endian) {
    return JitElfTarget{static_cast<uint16_t>(elf_machine),
                        !(elf_machine == EM_386 || elf_machine == EM_ARM || elf_machine == EM_PPC),
                        big_endian};
  }
  // Where .text starts: the ELF header and one program header, rounded up to 16.
  uint64_t text_offset() const { return is_64 ? 0x80 : 0x60; }
};

// One source line of generated code: `offset` counts from the code's start.
struct JitLine {
  uint64_t offset = 0;
  uint32_t line = 0;
  uint32_t column = 0;
  absl::string_view file;
};

struct JitFunction {
  absl::string_view name = {};
  base::Bytes code = {};
  // .eh_frame and .eh_frame_hdr to place right after the code (BuildJitElf
  // only); has_unwinding with both empty still makes the (empty) sections.
  bool has_unwinding = false;
  base::Bytes eh_frame = {};
  base::Bytes eh_frame_hdr = {};
  // In any order; lines outside the code are left out.
  std::span<const JitLine> lines = {};
};

}  // namespace perftk::elf

#endif  // PERFTK_ELF_JIT_CODE_H_
