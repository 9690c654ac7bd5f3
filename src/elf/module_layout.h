// Where the Linux kernel puts the code of a loadable module (an ET_REL `.ko`
// file, whose sections have no load addresses) in the module's memory.
//
// The layout follows the kernel's module loader, kernel/module/main.c
// (kernel/module.c before 5.19): layout_sections() visits the sections in
// groups by flags, executable (SHF_EXECINSTR | SHF_ALLOC) first, and within
// a group in section-header order, skipping sections whose names start with
// ".init" (they go to the init allocation, freed after the module's init);
// each section is placed at the running size rounded up to its
// sh_addralign (get_offset / module_get_offset_and_type). The text group is
// first in the core allocation (core_layout before 6.4, the MOD_TEXT
// allocation since), so text offsets count from the module's base: the
// address /proc/modules shows and perf and simpleperf record as the
// module's MMAP start. Only the text group is laid out: data comes after it
// and is never decoded.
//
// The code is kept relocated where the file alone allows: arm64 branches
// (R_AARCH64_CALL26, R_AARCH64_JUMP26) to code of the module's own placed
// sections get their targets, as apply_relocate_add would give them. A .ko
// holds `b .` (imm26 0) at every such branch until it is loaded (clang's
// CFI jump tables are all of them), and a decoder following the file's
// bytes loops there. Branches to the kernel's symbols stay as they are
// (their addresses are the running kernel's): decode them from a kcore.
//
// arm64 sizes its .plt and .text.ftrace_trampoline at load time
// (module_frob_arch_sections); their file sizes (placeholders of a few
// bytes) are used here. They come before .text in a .ko's section order,
// and .text is usually page-aligned, so .text's place is right as long as
// the module's PLT stays under a page.
#ifndef PERFTK_ELF_MODULE_LAYOUT_H_
#define PERFTK_ELF_MODULE_LAYOUT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "elf/elf_file.h"

namespace perftk::elf {

struct PlacedSection {
  std::string name;
  uint64_t memory_offset = 0;  // from the module's base
  uint64_t size = 0;
  uint64_t file_offset = 0;
  bool has_file_bytes = true;  // false for SHT_NOBITS (e.g. arm64's .plt)
  std::vector<uint8_t> code;   // the section's bytes, relocated as said above
};

class ModuleLayout {
 public:
  // The text of `module`, which must be ET_REL; an error names the file.
  static absl::StatusOr<ModuleLayout> Of(const ElfFile& module);

  // Executable sections in memory order.
  const std::vector<PlacedSection>& text() const { return text_; }
  // The placed section holding `memory_offset`, or null.
  const PlacedSection* SectionAt(uint64_t memory_offset) const;
  // The file offset of the code at `memory_offset`, if a section with file
  // bytes holds it.
  std::optional<uint64_t> FileOffset(uint64_t memory_offset) const;
  // Copies up to `size` bytes of relocated code at `memory_offset`, within
  // one section; returns how many (0: no code there).
  uint32_t Read(uint64_t memory_offset, uint32_t size, uint8_t* out) const;
  // How many branches were relocated.
  size_t relocated() const { return relocated_; }
  // Where ".text" starts in memory (0 when the module has none): the origin
  // of a module's addresses in simpleperf's profiles.
  uint64_t text_start() const { return text_start_; }

 private:
  absl::Status Relocate(const ElfFile& module, const std::vector<int>& placed_by_index);

  std::vector<PlacedSection> text_;
  uint64_t text_start_ = 0;
  size_t relocated_ = 0;
};

}  // namespace perftk::elf

#endif  // PERFTK_ELF_MODULE_LAYOUT_H_
