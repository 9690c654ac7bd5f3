// Build ids compared the way perf compares them.
//
// A build id is 1 to 20 bytes (20 for SHA-1, 16 for MD5, 8 for xxhash or
// a kernel module's short id). perf stores ids in a 20-byte field: a
// recording without BUILD_ID_SIZE holds a shorter id zero-padded to 20
// bytes (or trimmed back to 16). Two ids are the same when they agree on
// the bytes of the shorter and every further byte of the longer is zero.
// An empty id matches nothing.
#ifndef PERFTK_ELF_BUILD_ID_H_
#define PERFTK_ELF_BUILD_ID_H_

#include <optional>
#include <string>

#include "absl/strings/string_view.h"

namespace perftk::elf {

// `a` and `b` are raw bytes.
bool SameBuildId(absl::string_view a, absl::string_view b);

// The same for ids in lower- or upper-case hex (as ElfFile::BuildId gives);
// false for text that is not hex.
bool SameBuildIdHex(absl::string_view a, absl::string_view b);

// The GNU build id (raw bytes) in a run of ELF notes in this machine's byte
// order, as /sys/kernel/notes and /sys/module/NAME/notes/.note.gnu.build-id
// hold them; nullopt when there is none or the notes are cut short.
std::optional<std::string> GnuBuildIdInNotes(absl::string_view notes);

}  // namespace perftk::elf

#endif  // PERFTK_ELF_BUILD_ID_H_
