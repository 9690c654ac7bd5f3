// Translation of a code address (st_value, a PLT stub address) into the file
// offset a uprobe needs, through the program headers of the binary that is
// actually mapped at run time.
//
// Contract: the address must lie in the file-backed part of an executable
// PT_LOAD segment; when the binary has section headers the section formula
// (addr - sh_addr + sh_offset) must give the same answer. Anything else is an
// error naming both numbers, never a guess.
#ifndef PERFTK_UPROBE_ADDRESS_MAP_H_
#define PERFTK_UPROBE_ADDRESS_MAP_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "elf/elf_file.h"

namespace perftk::uprobe {

// `section` is the binary's section that st_shndx names, or null when the
// symbol came from elsewhere (a debug file, a PLT stub); then the section is
// looked up by address.
absl::StatusOr<uint64_t> CodeAddressToFileOffset(const elf::ElfFile& binary, uint64_t vaddr,
                                                 const elf::Section* section);

}  // namespace perftk::uprobe

#endif  // PERFTK_UPROBE_ADDRESS_MAP_H_
