#include "elf/build_id.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"

namespace perftk::elf {
namespace {

bool AllZero(absl::string_view bytes) {
  return std::all_of(bytes.begin(), bytes.end(), [](char c) { return c == '\0'; });
}

bool IsHex(absl::string_view text) {
  return text.size() % 2 == 0 &&
         std::all_of(text.begin(), text.end(), [](char c) { return absl::ascii_isxdigit(c); });
}

}  // namespace

bool SameBuildId(absl::string_view a, absl::string_view b) {
  if (a.empty() || b.empty()) return false;
  if (a.size() > b.size()) std::swap(a, b);
  return b.substr(0, a.size()) == a && AllZero(b.substr(a.size()));
}

bool SameBuildIdHex(absl::string_view a, absl::string_view b) {
  if (!IsHex(a) || !IsHex(b)) return false;
  return SameBuildId(absl::HexStringToBytes(a), absl::HexStringToBytes(b));
}

std::optional<std::string> GnuBuildIdInNotes(absl::string_view notes) {
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
    if (type == kGnuBuildId && name_size == 4 && notes.substr(name_at, 4) == absl::string_view("GNU\0", 4) &&
        desc_size > 0) {
      return std::string(notes.substr(desc_at, desc_size));
    }
    if (end > notes.size()) return std::nullopt;
    at = end;
  }
  return std::nullopt;
}

}  // namespace perftk::elf
