// Strict number fields of profile texts: digits only (no sign, space or
// 0x), no overflow.
#ifndef PERFTK_PROFILE_NUMBERS_H_
#define PERFTK_PROFILE_NUMBERS_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "base/build_id.h"

namespace perftk::profile {

std::optional<uint64_t> ParseHex(absl::string_view text);
std::optional<uint64_t> ParseDecimal(absl::string_view text);
// A build id as texts write it: 1 to 20 bytes in hex digits (no 0x, either
// case); nullopt for anything else.
std::optional<base::BuildId> ParseBuildId(absl::string_view text);
// a + b, or UINT64_MAX when that does not fit (Profile then saturates it).
uint64_t AddClamped(uint64_t a, uint64_t b);

}  // namespace perftk::profile

#endif  // PERFTK_PROFILE_NUMBERS_H_
