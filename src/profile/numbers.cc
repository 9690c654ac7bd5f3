#include "profile/numbers.h"

#include <algorithm>
#include <limits>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"

namespace perftk::profile {
namespace {

// Digits only (absl would also take a sign, spaces or 0x); absl checks
// the overflow. More than 20 digits is refused whatever their value.
template <typename IsDigit, typename Convert>
std::optional<uint64_t> Parse(absl::string_view text, IsDigit is_digit, Convert convert) {
  if (text.empty() || text.size() > 20) return std::nullopt;
  if (!std::all_of(text.begin(), text.end(),
                   [&](char c) { return is_digit(static_cast<unsigned char>(c)); })) {
    return std::nullopt;
  }
  uint64_t value = 0;
  if (!convert(text, &value)) return std::nullopt;
  return value;
}

}  // namespace

std::optional<uint64_t> ParseHex(absl::string_view text) {
  return Parse(text, absl::ascii_isxdigit,
               [](absl::string_view t, uint64_t* v) { return absl::SimpleHexAtoi(t, v); });
}
std::optional<uint64_t> ParseDecimal(absl::string_view text) {
  return Parse(text, absl::ascii_isdigit,
               [](absl::string_view t, uint64_t* v) { return absl::SimpleAtoi(t, v); });
}

std::optional<base::BuildId> ParseBuildId(absl::string_view text) {
  if (text.empty() || text.size() > 2 * base::BuildId::kMaxSize) return std::nullopt;
  return base::BuildId::FromHex(text);
}

uint64_t AddClamped(uint64_t a, uint64_t b) {
  return b > std::numeric_limits<uint64_t>::max() - a ? std::numeric_limits<uint64_t>::max()
                                                      : a + b;
}

}  // namespace perftk::profile
