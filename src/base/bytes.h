// Unaligned native-endian loads and stores over byte buffers, byte swapping,
// and a bounds-checked cursor. Everything in perftk past the reader works on
// native-endian bytes through these helpers (records need not be aligned);
// perf.data, ELF and jitdump code alike, so they live in src/base. The
// vocabulary (Bytes, Load, Store) is in namespace perftk itself.
#ifndef PERFTK_BASE_BYTES_H_
#define PERFTK_BASE_BYTES_H_

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <type_traits>
#include <vector>

namespace perftk::base {

using Bytes = std::span<const std::byte>;
using MutableBytes = std::span<std::byte>;

template <typename T>
T Load(const std::byte* p) {
  static_assert(std::is_trivially_copyable_v<T>);
  T value;
  std::memcpy(&value, p, sizeof(T));
  return value;
}

template <typename T>
void Store(std::byte* p, T value) {
  static_assert(std::is_trivially_copyable_v<T>);
  std::memcpy(p, &value, sizeof(T));
}

inline uint16_t ByteSwap(uint16_t v) { return __builtin_bswap16(v); }
inline uint32_t ByteSwap(uint32_t v) { return __builtin_bswap32(v); }
inline uint64_t ByteSwap(uint64_t v) { return __builtin_bswap64(v); }

// Swaps the T at p in place.
template <typename T>
void SwapInPlace(std::byte* p) {
  Store<T>(p, ByteSwap(Load<T>(p)));
}

// Swaps `count` consecutive Ts starting at p, in place.
template <typename T>
void SwapArrayInPlace(std::byte* p, size_t count) {
  for (size_t i = 0; i < count; ++i) SwapInPlace<T>(p + i * sizeof(T));
}

// Appends the bytes of a trivially copyable value to a buffer.
template <typename T>
void Append(std::vector<std::byte>& out, T value) {
  static_assert(std::is_trivially_copyable_v<T>);
  size_t at = out.size();
  out.resize(at + sizeof(T));
  std::memcpy(out.data() + at, &value, sizeof(T));
}

inline void AppendBytes(std::vector<std::byte>& out, Bytes bytes) {
  out.insert(out.end(), bytes.begin(), bytes.end());
}

inline Bytes AsBytes(const void* data, size_t size) {
  return Bytes(static_cast<const std::byte*>(data), size);
}

inline constexpr uint64_t AlignUp(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

// Reads consecutive fields from a byte span without ever reading past it.
// After a failed read, ok() is false and every further read returns zero.
class ByteCursor {
 public:
  explicit ByteCursor(Bytes bytes) : bytes_(bytes) {}

  template <typename T>
  T Read() {
    if (!Has(sizeof(T))) return Fail<T>();
    T value = Load<T>(bytes_.data() + pos_);
    pos_ += sizeof(T);
    return value;
  }
  // The next n bytes as a span (empty on failure).
  Bytes ReadBytes(uint64_t n) {
    if (!Has(n)) return Fail<Bytes>();
    Bytes span = bytes_.subspan(pos_, n);
    pos_ += n;
    return span;
  }
  bool Skip(uint64_t n) { return !ReadBytes(n).empty() || n == 0; }

  bool Has(uint64_t n) const { return ok_ && n <= bytes_.size() - pos_; }
  bool ok() const { return ok_; }
  size_t position() const { return pos_; }
  size_t remaining() const { return bytes_.size() - pos_; }

 private:
  template <typename T>
  T Fail() {
    ok_ = false;
    return T{};
  }

  Bytes bytes_;
  size_t pos_ = 0;
  bool ok_ = true;
};

}  // namespace perftk::base

#endif  // PERFTK_BASE_BYTES_H_
