// PLT stubs of a dynamically linked binary: for each imported function, the
// address of the stub through which this binary calls it.
//
// Stubs are found the way a disassembler names "func@plt": each stub's
// indirect jump is decoded to the GOT slot it reads, and the slot is matched
// to the dynamic relocation (JUMP_SLOT or GLOB_DAT) that names the symbol.
// This covers lazy .plt, .plt.sec (IBT), .plt.got (-z now, address-taken
// functions), GNU ld and lld layouts, on x86_64 and aarch64. When a symbol
// has stubs in several sections the one executed on every call wins
// (.plt.sec over .plt over .plt.got).
#ifndef PERFTK_UPROBE_PLT_H_
#define PERFTK_UPROBE_PLT_H_

#include <cstdint>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "elf/elf_file.h"

namespace perftk::uprobe {

struct PltStub {
  uint64_t vaddr = 0;
  const elf::Section* section = nullptr;
};

// Stubs keyed by the .dynsym index of the imported symbol.
using PltStubs = absl::flat_hash_map<size_t, PltStub>;

absl::StatusOr<PltStubs> FindPltStubs(const elf::ElfFile& binary);

}  // namespace perftk::uprobe

#endif  // PERFTK_UPROBE_PLT_H_
