#include "elf/build_id.h"

#include <cstdint>
#include <cstring>
#include <string>

namespace perftk::elf {

std::optional<base::BuildId> GnuBuildIdInNotes(absl::string_view notes) {
  constexpr uint32_t kGnuBuildId = 3;  // NT_GNU_BUILD_ID
  const auto align4 = [](uint64_t n) { return (n + 3) & ~uint64_t{3}; };
  size_t at = 0;
  while (notes.size() - at >= 12) {
    uint32_t name_size, desc_size, type;
    std::memcpy(&name_size, notes.data() + at, 4);
    std::memcpy(&desc_size, notes.data() + at + 4, 4);
    std::memcpy(&type, notes.data() + at + 8, 4);
    const uint64_t name_at = at + 12;
    const uint64_t desc_at = name_at + align4(name_size);
    const uint64_t end = desc_at + align4(desc_size);
    if (desc_at + desc_size > notes.size()) return std::nullopt;
    if (type == kGnuBuildId && name_size == 4 &&
        notes.substr(name_at, 4) == absl::string_view("GNU\0", 4) && desc_size > 0) {
      return base::BuildId::FromBytes(notes.substr(desc_at, desc_size));
    }
    if (end > notes.size()) return std::nullopt;
    at = end;
  }
  return std::nullopt;
}

bool HasBuildId(const ElfFile& file, const base::BuildId& expected) {
  std::optional<base::BuildId> id = file.BuildId();
  return id && expected.Matches(*id);
}

}  // namespace perftk::elf
