// Test-only: unwinding tables shaped as V8 writes them into a jitdump's
// UNWINDING_INFO (little-endian x86-64), with knobs for the shapes a reader
// must refuse.
#ifndef PERFTK_TESTS_TESTING_V8_EH_FRAME_H_
#define PERFTK_TESTS_TESTING_V8_EH_FRAME_H_

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "base/bytes.h"

namespace perftk::testing {

inline void Put32(std::vector<std::byte>& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::byte>((v >> (8 * i)) & 0xff));
}
inline void PutBytes(std::vector<std::byte>& out, std::initializer_list<int> bytes) {
  for (int b : bytes) out.push_back(static_cast<std::byte>(b));
}
struct TableShape {
  int version = 3;
  std::string augmentation = "zLR";
  int lsda_encoding = 0xff;
  int fde_encoding = 0x1b;  // pcrel sdata4
  int64_t fde_start = 0;    // from the code's first byte
  uint32_t fde_range_cut = 2;
};

// One CIE and one FDE, little-endian x86-64, as the table sits at
// AlignUp(code_size, 8) after the code: what V8 puts in UNWINDING_INFO.
inline std::vector<std::byte> V8Table(uint64_t code_size, const TableShape& shape = {}) {
  std::vector<std::byte> t;
  Put32(t, 0);  // length, patched
  Put32(t, 0);  // CIE id
  PutBytes(t, {shape.version});
  for (char c : shape.augmentation) t.push_back(static_cast<std::byte>(c));
  PutBytes(t, {0, 1, 0x78, 16});  // code align 1, data align -8, return address r16
  if (shape.augmentation == "zLR") PutBytes(t, {2, shape.lsda_encoding, shape.fde_encoding});
  if (shape.augmentation == "zR") PutBytes(t, {1, shape.fde_encoding});
  PutBytes(t, {0x0c, 7, 8, 0x90, 1});  // def_cfa rsp+8; rip at cfa-8
  while (t.size() % 4 != 0) t.push_back(std::byte{0});
  uint32_t cie_length = static_cast<uint32_t>(t.size() - 4);
  for (int i = 0; i < 4; ++i) t[i] = static_cast<std::byte>((cie_length >> (8 * i)) & 0xff);

  size_t fde = t.size();
  Put32(t, 16);                              // length
  Put32(t, static_cast<uint32_t>(fde + 4));  // back to the CIE at 0
  uint64_t field = base::AlignUp(code_size, 8) + fde + 8;
  Put32(t, static_cast<uint32_t>(shape.fde_start - static_cast<int64_t>(field)));
  Put32(t, static_cast<uint32_t>(code_size - shape.fde_range_cut));
  PutBytes(t, {0, 0x41, 0x0e, 16});  // aug length 0; advance 1; cfa offset 16
  Put32(t, 0);                       // terminator
  return t;
}

}  // namespace perftk::testing

#endif  // PERFTK_TESTS_TESTING_V8_EH_FRAME_H_
