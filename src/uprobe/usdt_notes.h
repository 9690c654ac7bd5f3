// USDT (SystemTap SDT v3) probe notes: the NT_STAPSDT notes of a
// ".note.stapsdt" section, as <sys/sdt.h> emits them, and where each probe
// goes in the file.
//
// A note's descriptor holds three addresses of the ELF class's width in the
// file's byte order (probe location, link-time address of ".stapsdt.base",
// semaphore or 0) followed by three NUL-terminated strings (provider, name,
// argument specs). When the file has a ".stapsdt.base" section whose address
// differs from the note's base (a prelinked file), the difference is added
// to the location and the semaphore, as SystemTap defines it.
#ifndef PERFTK_UPROBE_USDT_NOTES_H_
#define PERFTK_UPROBE_USDT_NOTES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "elf/elf_file.h"

namespace perftk::uprobe {

// One note, as stored in the file.
struct UsdtNote {
  std::string provider;
  std::string name;
  std::string arguments;  // e.g. "-4@%edi 8@-16(%rbp)"; empty for none
  uint64_t location = 0;
  uint64_t base = 0;         // 0 when the note does not refer to .stapsdt.base
  uint64_t semaphore = 0;    // 0 when the probe has none
  uint64_t file_offset = 0;  // where the note's header starts in the file
};

// One note placed in the file: addresses after the .stapsdt.base
// adjustment, and the file offsets the kernel takes.
struct UsdtProbe {
  UsdtNote note;
  uint64_t address = 0;            // adjusted location
  uint64_t offset = 0;             // file offset of `address` (uprobe offset)
  uint64_t semaphore_address = 0;  // adjusted semaphore, 0 if none
  uint64_t semaphore_offset = 0;   // file offset of the semaphore (ref_ctr_offset), 0 if none

  // "PROVIDER:NAME".
  std::string FullName() const { return note.provider + ":" + note.name; }
};

// Every NT_STAPSDT note of every ".note.stapsdt" section, in file order;
// empty if there is none. A malformed note is an error naming the file and
// the note's offset.
absl::StatusOr<std::vector<UsdtNote>> ReadUsdtNotes(const elf::ElfFile& file);

// Places each note: the adjusted location must lie in an executable PT_LOAD
// (cross-checked with the section headers), a semaphore in a file-backed
// PT_LOAD that is not executable.
absl::StatusOr<std::vector<UsdtProbe>> PlaceUsdtNotes(const elf::ElfFile& file,
                                                      std::vector<UsdtNote> notes);

}  // namespace perftk::uprobe

#endif  // PERFTK_UPROBE_USDT_NOTES_H_
