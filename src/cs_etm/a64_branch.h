// A64 branches as an ETMv4 or ETE trace unit sees them.
//
// A64DirectBranchTarget: the target of a direct branch, read from the
// instruction word. Direct branches carry their target as a signed word
// offset from their own address: B and BL (imm26), B.cond, BC.cond, CBZ and
// CBNZ (imm19), TBZ and TBNZ (imm14). Every other instruction, indirect branches
// (BR, BLR, RET, ERET) included, has no target in its encoding.
//
// ClassifyA64: whether an instruction is a waypoint, the instruction an
// atom (E or N) of the trace stands for, and of which kind; classified as
// OpenCSD 1.3.3 classifies it, so that the fast decoder and OpenCSD's
// agree instruction for instruction (tests/cs_etm/a64_branch_opencsd_test.cc
// checks that against the library itself). Worth knowing: ISB is always a
// waypoint, and so is TSTART (FEAT_TME) on an Armv8.3+ trace unit; DSB and
// DMB never are (OpenCSD's ETMv4 decoder configures them off).
#ifndef PERFTK_CS_ETM_A64_BRANCH_H_
#define PERFTK_CS_ETM_A64_BRANCH_H_

#include <cstdint>
#include <optional>

namespace perftk::cs_etm {

// The instruction word at `bytes` (at least 4): A64 code is little-endian
// whatever the host.
inline uint32_t A64Word(const uint8_t* bytes) {
  return uint32_t{bytes[0]} | uint32_t{bytes[1]} << 8 | uint32_t{bytes[2]} << 16 |
         uint32_t{bytes[3]} << 24;
}

// The target of `instruction` (the little-endian word at `address`) if it is
// a direct branch; nullopt otherwise. Addresses wrap modulo 2^64.
std::optional<uint64_t> A64DirectBranchTarget(uint32_t instruction, uint64_t address);

enum class A64Waypoint : uint8_t {
  kNone,            // not a waypoint: the trace walks past it
  kDirectBranch,    // B, BL, B.cond, BC.cond, CBZ, CBNZ, TBZ, TBNZ
  kIndirectBranch,  // BR, BLR, RET, ERET and, from Armv8.3, their authenticated forms
  kIsb,             // ISB
  kWfiWfe,          // WFI, WFE (and from Armv8.7 WFIT, WFET), when traced as branches
  kTstart,          // TSTART: a transaction starts (FEAT_TME)
};

// What a branch does besides branching.
enum class A64BranchRole : uint8_t {
  kPlain,
  kLink,             // BL, BLR, BLRAA...: writes the return address to X30
  kReturn,           // RET, RETAA, RETAB
  kExceptionReturn,  // ERET, ERETAA, ERETAB
};

struct A64Instruction {
  A64Waypoint waypoint = A64Waypoint::kNone;
  A64BranchRole role = A64BranchRole::kPlain;
  bool conditional = false;  // B.cond, BC.cond, CBZ, CBNZ, TBZ, TBNZ
  bool operator==(const A64Instruction&) const = default;
};

// What the trace unit's configuration changes in the classification.
struct A64TraceFeatures {
  // An Armv8.3+ trace unit (OpenCSD's ARCH_AA64: TRCIDR1's minor version
  // >= 4, or ETE): pointer-authentication branches, WFIT, WFET, TSTART.
  bool armv8_3 = true;
  // TRCIDR2.WFXMODE on an ETMv4.3+: WFI and WFE are traced as branches.
  bool wfi_wfe_branches = false;
};

A64Instruction ClassifyA64(uint32_t instruction, const A64TraceFeatures& features);

}  // namespace perftk::cs_etm

#endif  // PERFTK_CS_ETM_A64_BRANCH_H_
