#include "profile/numbers.h"

#include <algorithm>
#include <limits>

#include "absl/strings/ascii.h"

namespace perftk::profile {
namespace {

std::optional<uint64_t> Parse(absl::string_view text, unsigned base) {
  if (text.empty() || text.size() > 20) return std::nullopt;
  uint64_t value = 0;
  for (char c : text) {
    unsigned digit;
    if (c >= '0' && c <= '9') {
      digit = static_cast<unsigned>(c - '0');
    } else if (base == 16 && c >= 'a' && c <= 'f') {
      digit = static_cast<unsigned>(c - 'a' + 10);
    } else if (base == 16 && c >= 'A' && c <= 'F') {
      digit = static_cast<unsigned>(c - 'A' + 10);
    } else {
      return std::nullopt;
    }
    if (value > (std::numeric_limits<uint64_t>::max() - digit) / base) return std::nullopt;
    value = value * base + digit;
  }
  return value;
}

}  // namespace

std::optional<uint64_t> ParseHex(absl::string_view text) { return Parse(text, 16); }
std::optional<uint64_t> ParseDecimal(absl::string_view text) { return Parse(text, 10); }

std::optional<std::string> ParseBuildId(absl::string_view text) {
  if (text.empty() || text.size() > 40 || text.size() % 2 != 0) return std::nullopt;
  if (!std::all_of(text.begin(), text.end(), absl::ascii_isxdigit)) return std::nullopt;
  return absl::AsciiStrToLower(text);
}

uint64_t AddClamped(uint64_t a, uint64_t b) {
  return b > std::numeric_limits<uint64_t>::max() - a ? std::numeric_limits<uint64_t>::max()
                                                      : a + b;
}

}  // namespace perftk::profile
