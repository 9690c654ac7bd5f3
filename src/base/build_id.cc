#include "base/build_id.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"

namespace perftk::base {

BuildId BuildId::FromBytes(std::span<const std::byte> bytes) {
  BuildId id;
  id.size_ = static_cast<uint8_t>(std::min(bytes.size(), kMaxSize));
  std::copy_n(bytes.begin(), id.size_, id.bytes_.begin());  // no memcpy: data() may be null
  return id;
}

BuildId BuildId::FromBytes(std::span<const uint8_t> bytes) {
  return FromBytes(std::as_bytes(bytes));
}

BuildId BuildId::FromBytes(absl::string_view bytes) {
  return FromBytes(std::as_bytes(std::span<const char>(bytes.data(), bytes.size())));
}

std::optional<BuildId> BuildId::FromHex(absl::string_view hex) {
  if (hex.size() % 2 != 0 || !std::all_of(hex.begin(), hex.end(), absl::ascii_isxdigit)) {
    return std::nullopt;
  }
  return FromBytes(absl::HexStringToBytes(hex.substr(0, 2 * std::min(hex.size() / 2, kMaxSize))));
}

std::string BuildId::ToHex() const { return absl::BytesToHexString(bytes_view()); }

bool BuildId::Matches(const BuildId& other) const {
  if (empty() || other.empty()) return false;
  const BuildId& shorter = size_ <= other.size_ ? *this : other;
  const BuildId& longer = size_ <= other.size_ ? other : *this;
  const auto rest = longer.bytes().subspan(shorter.size_);
  return longer.bytes_view().substr(0, shorter.size_) == shorter.bytes_view() &&
         std::all_of(rest.begin(), rest.end(), [](std::byte b) { return b == std::byte{0}; });
}

BuildId BuildId::PaddedTo20() const {
  BuildId id = *this;
  if (!id.empty()) id.size_ = kMaxSize;  // bytes_ past size_ are zero
  return id;
}

BuildId BuildId::Unpadded() const { return DroppingZerosPast(0); }

BuildId BuildId::Printable() const { return DroppingZerosPast(16); }

BuildId BuildId::DroppingZerosPast(size_t keep) const {
  BuildId id = *this;
  while (id.size_ > keep && id.bytes_[id.size_ - 1] == std::byte{0}) --id.size_;
  return id;
}

}  // namespace perftk::base
