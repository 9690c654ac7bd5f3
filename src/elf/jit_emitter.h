// Emitter: appends integers to a byte buffer in a JIT ELF target's byte
// order (addresses in its class), and the ULEB128/SLEB128 numbers DWARF
// uses. The buffer grows by exactly what each call says.
#ifndef PERFTK_ELF_JIT_EMITTER_H_
#define PERFTK_ELF_JIT_EMITTER_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/strings/string_view.h"
#include "base/bytes.h"
#include "elf/jit_code.h"

namespace perftk::elf {

class Emitter {
 public:
  Emitter(const JitElfTarget& target, std::vector<std::byte>& out) : target_(target), out_(out) {}
  void U8(uint64_t v) { Put(1, v); }
  void U16(uint64_t v) { Put(2, v); }
  void U32(uint64_t v) { Put(4, v); }
  void U64(uint64_t v) { Put(8, v); }
  void Addr(uint64_t v) { Put(target_.is_64 ? 8 : 4, v); }
  void Bytes_(base::Bytes b) { out_.insert(out_.end(), b.begin(), b.end()); }
  // The string and a terminating NUL.
  void String(absl::string_view s) {
    Bytes_(base::AsBytes(s.data(), s.size()));
    U8(0);
  }
  void Uleb(uint64_t v) {
    do {
      uint8_t byte = v & 0x7f;
      v >>= 7;
      U8(byte | (v ? 0x80 : 0));
    } while (v);
  }
  void Sleb(int64_t v) {
    while (true) {
      uint8_t byte = v & 0x7f;
      v >>= 7;  // arithmetic shift
      bool done = (v == 0 && !(byte & 0x40)) || (v == -1 && (byte & 0x40));
      U8(byte | (done ? 0 : 0x80));
      if (done) return;
    }
  }
  void PadTo(uint64_t alignment) {
    while (out_.size() % alignment != 0) out_.push_back(std::byte{0});
  }
  // Overwrites the 4 bytes at `at` (already emitted) with `v`.
  void Patch32(size_t at, uint32_t v) {
    for (int i = 0; i < 4; ++i) {
      int shift = target_.big_endian ? 8 * (3 - i) : 8 * i;
      out_[at + i] = static_cast<std::byte>((v >> shift) & 0xff);
    }
  }
  size_t size() const { return out_.size(); }

 private:
  void Put(int width, uint64_t v) {
    for (int i = 0; i < width; ++i) {
      int shift = target_.big_endian ? 8 * (width - 1 - i) : 8 * i;
      out_.push_back(static_cast<std::byte>((v >> shift) & 0xff));
    }
  }

  const JitElfTarget& target_;
  std::vector<std::byte>& out_;
};

}  // namespace perftk::elf

#endif  // PERFTK_ELF_JIT_EMITTER_H_
