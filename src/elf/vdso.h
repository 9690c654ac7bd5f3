// The vDSO the kernel maps into this process: its image and build id. A
// recording made on this kernel maps the same image into every process, so
// its [vdso] samples can be read with this one when the build ids agree.
#ifndef PERFTK_ELF_VDSO_H_
#define PERFTK_ELF_VDSO_H_

#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "base/build_id.h"

namespace perftk::elf {

// The image's bytes in memory (its ELF header to the end of its section
// headers or segments, whichever is further); empty without a vDSO.
absl::string_view OwnVdsoImage();

// Its GNU build id; nullopt without one.
std::optional<base::BuildId> OwnVdsoBuildId();

}  // namespace perftk::elf

#endif  // PERFTK_ELF_VDSO_H_
