// The target of a direct A64 branch, read from the instruction word.
//
// Direct branches carry their target as a signed word offset from their own
// address: B and BL (imm26), B.cond, CBZ and CBNZ (imm19), TBZ and TBNZ
// (imm14). Every other instruction, indirect branches (BR, BLR, RET, ERET)
// included, has no target in its encoding.
#ifndef PERFTK_CS_ETM_A64_BRANCH_H_
#define PERFTK_CS_ETM_A64_BRANCH_H_

#include <cstdint>
#include <optional>

namespace perftk::cs_etm {

// The target of `instruction` (the little-endian word at `address`) if it is
// a direct branch; nullopt otherwise. Addresses wrap modulo 2^64.
std::optional<uint64_t> A64DirectBranchTarget(uint32_t instruction, uint64_t address);

}  // namespace perftk::cs_etm

#endif  // PERFTK_CS_ETM_A64_BRANCH_H_
