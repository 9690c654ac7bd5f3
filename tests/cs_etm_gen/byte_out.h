// Little-endian bytes appended one field at a time, for the ELF and DWARF
// the generator writes.
#ifndef PERFTK_TESTS_CS_ETM_GEN_BYTE_OUT_H_
#define PERFTK_TESTS_CS_ETM_GEN_BYTE_OUT_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace perftk::etm_gen {

class ByteOut {
 public:
  void U8(uint8_t v) { bytes.push_back(v); }
  void U16(uint16_t v) { Int(v, 2); }
  void U32(uint32_t v) { Int(v, 4); }
  void U64(uint64_t v) { Int(v, 8); }
  void Int(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) bytes.push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
  void Uleb(uint64_t v) {
    do {
      uint8_t byte = v & 0x7f;
      v >>= 7;
      U8(v != 0 ? (byte | 0x80) : byte);
    } while (v != 0);
  }
  void Sleb(int64_t v) {
    while (true) {
      uint8_t byte = v & 0x7f;
      v >>= 7;  // arithmetic shift
      const bool done = (v == 0 && !(byte & 0x40)) || (v == -1 && (byte & 0x40));
      U8(done ? byte : (byte | 0x80));
      if (done) return;
    }
  }
  // `s` and its terminating NUL.
  void Str(const std::string& s) {
    bytes.insert(bytes.end(), s.begin(), s.end());
    U8(0);
  }
  void Append(const std::vector<uint8_t>& more) {
    bytes.insert(bytes.end(), more.begin(), more.end());
  }
  void PadTo(size_t offset) {
    if (bytes.size() < offset) bytes.resize(offset, 0);
  }
  void Align(size_t a) { PadTo((bytes.size() + a - 1) / a * a); }
  // Overwrites the 4 bytes at `offset`.
  void Patch32(size_t offset, uint32_t v) {
    for (int i = 0; i < 4; ++i) bytes[offset + i] = static_cast<uint8_t>(v >> (8 * i));
  }

  std::vector<uint8_t> bytes;
};

}  // namespace perftk::etm_gen

#endif  // PERFTK_TESTS_CS_ETM_GEN_BYTE_OUT_H_
