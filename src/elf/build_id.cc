#include "elf/build_id.h"

#include <algorithm>
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

}  // namespace perftk::elf
