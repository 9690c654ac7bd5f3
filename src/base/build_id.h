// A build id: the one value type every room keeps build ids in.
//
// A build id is up to 20 bytes (20 for SHA-1, 16 for MD5, 8 for xxhash or a
// kernel module's short id). perf stores ids in a 20-byte field: a recording
// without PERF_RECORD_MISC_BUILD_ID_SIZE holds a shorter id zero-padded to
// 20 bytes. Ids longer than 20 bytes are cut to 20, as perf cuts a note it
// reads into that field.
//
// perf's comparison (Matches): two ids are the same when they agree on the
// bytes of the shorter and every further byte of the longer is zero; an
// empty id matches nothing. operator== is exact (bytes and size), for maps.
//
// The padding rules, each in one place here:
//   PaddedTo20()  zero-padded to 20 bytes, as simpleperf writes profiles
//                 (the empty id stays empty);
//   Unpadded()    trailing zero bytes dropped: a short id recorded padded,
//                 under the name the build-id cache keeps it;
//   Printable()   zero bytes past the 16th dropped, as perf prints an id.
#ifndef PERFTK_BASE_BUILD_ID_H_
#define PERFTK_BASE_BUILD_ID_H_

#include <array>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>

#include "absl/strings/string_view.h"

namespace perftk::base {

class BuildId {
 public:
  static constexpr size_t kMaxSize = 20;

  BuildId() = default;  // empty: no id

  // The first kMaxSize bytes of `bytes`.
  static BuildId FromBytes(std::span<const std::byte> bytes);
  static BuildId FromBytes(std::span<const uint8_t> bytes);
  static BuildId FromBytes(absl::string_view bytes);
  // `hex` in lower or upper case, an even number of digits, no "0x"; cut
  // to kMaxSize bytes like FromBytes. nullopt for text that is not hex.
  static std::optional<BuildId> FromHex(absl::string_view hex);

  std::span<const std::byte> bytes() const { return {bytes_.data(), size_}; }
  // The bytes as a string (raw, not text), for byte-string interfaces.
  absl::string_view bytes_view() const {
    return {reinterpret_cast<const char*>(bytes_.data()), size_};
  }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // Lower-case hex, two digits a byte; "" for the empty id.
  std::string ToHex() const;

  // perf's comparison (see the top of this file).
  bool Matches(const BuildId& other) const;

  BuildId PaddedTo20() const;
  BuildId Unpadded() const;
  BuildId Printable() const;

  friend bool operator==(const BuildId& a, const BuildId& b) {
    return a.bytes_view() == b.bytes_view();
  }
  // Byte-wise (unsigned), a prefix first: the order of the ids' hex text.
  friend std::strong_ordering operator<=>(const BuildId& a, const BuildId& b) {
    return a.bytes_view().compare(b.bytes_view()) <=> 0;
  }

  template <typename H>
  friend H AbslHashValue(H h, const BuildId& id) {
    return H::combine(std::move(h), id.bytes_view());
  }

 private:
  BuildId DroppingZerosPast(size_t keep) const;

  std::array<std::byte, kMaxSize> bytes_{};
  uint8_t size_ = 0;
};

}  // namespace perftk::base

#endif  // PERFTK_BASE_BUILD_ID_H_
