// Separate symbol sources of a stripped binary, in the order gdb and bcc use:
// a debug file found by build id (DEBUG_ROOT/.build-id/xx/yyyy.debug), one
// named by .gnu_debuglink (checked by CRC-32), and MiniDebugInfo (an
// xz-compressed ELF in .gnu_debugdata holding a .symtab).
//
// A debug file only supplies symbol values; offsets are always computed with
// the program headers of the binary itself (a debug file's .text is NOBITS).
#ifndef PERFTK_ELF_DEBUG_FILES_H_
#define PERFTK_ELF_DEBUG_FILES_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "elf/elf_file.h"

namespace perftk::elf {

// The debug file of `binary`, or null when none is found. A candidate whose
// build id or CRC does not match is skipped; one that is not a regular file
// (a FIFO, a device) is an error naming it.
absl::StatusOr<std::unique_ptr<ElfFile>> FindDebugFile(const ElfFile& binary,
                                                       const std::string& debug_root);

// The decompressed MiniDebugInfo of `binary`, or null when it has none.
absl::StatusOr<std::unique_ptr<ElfFile>> OpenMiniDebugInfo(const ElfFile& binary);

// CRC-32 as used by .gnu_debuglink (zlib's crc32), continuing `crc`.
uint32_t DebuglinkCrc(uint32_t crc, absl::string_view bytes);

}  // namespace perftk::elf

#endif  // PERFTK_ELF_DEBUG_FILES_H_
