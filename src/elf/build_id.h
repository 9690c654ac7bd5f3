// Build ids in ELF files and notes, as BuildId values (base/build_id.h has
// the value and perf's comparison rule).
#ifndef PERFTK_ELF_BUILD_ID_H_
#define PERFTK_ELF_BUILD_ID_H_

#include <optional>

#include "absl/strings/string_view.h"
#include "base/build_id.h"
#include "elf/elf_file.h"

namespace perftk::elf {

// The GNU build id in a run of ELF notes in this machine's byte order, as
// /sys/kernel/notes and /sys/module/NAME/notes/.note.gnu.build-id hold
// them; nullopt when there is none or the notes are cut short.
std::optional<base::BuildId> GnuBuildIdInNotes(absl::string_view notes);

// `file` has a build id and it matches `expected` as perf compares them.
bool HasBuildId(const ElfFile& file, const base::BuildId& expected);

}  // namespace perftk::elf

#endif  // PERFTK_ELF_BUILD_ID_H_
