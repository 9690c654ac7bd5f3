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
  } else if ((instruction & 0xff000000u) == 0x54000000u ||  // B.cond, BC.cond
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

namespace perftk::cs_etm {
namespace {

// The indirect branches: register branches (BR, BLR, RET, ERET) and, from
// Armv8.3, their pointer-authentication forms.
std::optional<A64Instruction> IndirectBranch(uint32_t word, bool armv8_3) {
  constexpr auto kIndirect = A64Waypoint::kIndirectBranch;
  const bool link_bit = (word & 0x00200000u) != 0;
  if ((word & 0xffdffc1fu) == 0xd61f0000u) {  // BR Xn, BLR Xn
    return A64Instruction{kIndirect, link_bit ? A64BranchRole::kLink : A64BranchRole::kPlain};
  }
  if ((word & 0xfffffc1fu) == 0xd65f0000u) return A64Instruction{kIndirect, A64BranchRole::kReturn};
  if (word == 0xd69f03e0u) return A64Instruction{kIndirect, A64BranchRole::kExceptionReturn};
  if (!armv8_3) return std::nullopt;
  if ((word & 0xffdff800u) == 0xd71f0800u ||  // BRAA, BRAB, BLRAA, BLRAB
      (word & 0xffdff81fu) == 0xd61f081fu) {  // BRAAZ, BRABZ, BLRAAZ, BLRABZ
    return A64Instruction{kIndirect, link_bit ? A64BranchRole::kLink : A64BranchRole::kPlain};
  }
  if ((word & 0xfffffbffu) == 0xd69f0bffu) {  // ERETAA, ERETAB
    return A64Instruction{kIndirect, A64BranchRole::kExceptionReturn};
  }
  if ((word & 0xfffffbffu) == 0xd65f0bffu) {  // RETAA, RETAB
    return A64Instruction{kIndirect, A64BranchRole::kReturn};
  }
  return std::nullopt;
}

bool IsCompareOrTestBranch(uint32_t word) { return (word & 0x7c000000u) == 0x34000000u; }
bool IsConditionalBranch(uint32_t word) { return (word & 0xff000000u) == 0x54000000u; }

}  // namespace

A64Instruction ClassifyA64(uint32_t word, const A64TraceFeatures& features) {
  A64Instruction instruction;
  if (std::optional<A64Instruction> indirect = IndirectBranch(word, features.armv8_3)) {
    instruction = *indirect;
  } else if (IsCompareOrTestBranch(word) || IsConditionalBranch(word)) {
    instruction.waypoint = A64Waypoint::kDirectBranch;
  } else if ((word & 0x7c000000u) == 0x14000000u) {  // B, BL
    instruction.waypoint = A64Waypoint::kDirectBranch;
    if ((word & 0x80000000u) != 0) instruction.role = A64BranchRole::kLink;
  } else if ((word & 0xfffff0ffu) == 0xd50330dfu) {  // ISB (any option)
    instruction.waypoint = A64Waypoint::kIsb;
  } else if (features.wfi_wfe_branches &&
             ((word & 0xffffffdfu) == 0xd503205fu ||                         // WFE, WFI
              (features.armv8_3 && (word & 0xffffffc0u) == 0xd5031000u))) {  // WFET, WFIT
    instruction.waypoint = A64Waypoint::kWfiWfe;
  } else if (features.armv8_3 && (word & 0xffffffe0u) == 0xd5233060u) {  // TSTART Xt
    instruction.waypoint = A64Waypoint::kTstart;
  }
  instruction.conditional = IsCompareOrTestBranch(word) || IsConditionalBranch(word);
  return instruction;
}

}  // namespace perftk::cs_etm
