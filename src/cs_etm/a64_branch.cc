#include "cs_etm/a64_branch.h"

namespace perftk::cs_etm {
namespace {

int64_t SignExtend(uint64_t value, int bits) {
  uint64_t sign = 1ULL << (bits - 1);
  return static_cast<int64_t>((value ^ sign) - sign);
}

}  // namespace

std::optional<uint64_t> A64DirectBranchTarget(uint32_t instruction, uint64_t address) {
  int64_t delta = 0;
  if ((instruction & 0x7c000000u) == 0x14000000u) {  // B, BL
    delta = SignExtend(instruction & 0x3ffffffu, 26) * 4;
  } else if ((instruction & 0xff000010u) == 0x54000000u ||  // B.cond
             (instruction & 0x7e000000u) == 0x34000000u) {  // CBZ, CBNZ
    delta = SignExtend((instruction >> 5) & 0x7ffffu, 19) * 4;
  } else if ((instruction & 0x7e000000u) == 0x36000000u) {  // TBZ, TBNZ
    delta = SignExtend((instruction >> 5) & 0x3fffu, 14) * 4;
  } else {
    return std::nullopt;
  }
  return address + static_cast<uint64_t>(delta);
}

}  // namespace perftk::cs_etm
