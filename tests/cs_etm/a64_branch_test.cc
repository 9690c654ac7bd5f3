// A64DirectBranchTarget on instruction words as llvm-mc 16 encodes them
// (`llvm-mc -triple=aarch64 -show-encoding`, bytes read little-endian); the
// offsets in the comments are the assembler's, relative to the instruction.
#include "cs_etm/a64_branch.h"

#include <cstdint>
#include <optional>

#include "gtest/gtest.h"

namespace perftk::cs_etm {
namespace {

constexpr uint64_t kAt = 0x400100;

TEST(A64DirectBranchTarget, UnconditionalImmediateBranches) {
  EXPECT_EQ(A64DirectBranchTarget(0x14000010u, kAt), kAt + 0x40);    // b #0x40
  EXPECT_EQ(A64DirectBranchTarget(0x17fffffeu, kAt), kAt - 0x8);     // b #-0x8
  EXPECT_EQ(A64DirectBranchTarget(0x94000400u, kAt), kAt + 0x1000);  // bl #0x1000
  // bl #-0x4000000: the farthest back imm26 reaches.
  EXPECT_EQ(A64DirectBranchTarget(0x97000000u, 0x8000000), 0x8000000u - 0x4000000u);
}

TEST(A64DirectBranchTarget, ConditionalAndCompareBranches) {
  EXPECT_EQ(A64DirectBranchTarget(0x54000100u, kAt), kAt + 0x20);      // b.eq #0x20
  EXPECT_EQ(A64DirectBranchTarget(0x54800001u, kAt), kAt - 0x100000);  // b.ne #-0x100000
  EXPECT_EQ(A64DirectBranchTarget(0x54000110u, kAt), kAt + 0x20);      // bc.eq #0x20 (FEAT_HBC)
  EXPECT_EQ(A64DirectBranchTarget(0x34000081u, kAt), kAt + 0x10);      // cbz w1, #0x10
  EXPECT_EQ(A64DirectBranchTarget(0xb5ffffe2u, kAt), kAt - 0x4);       // cbnz x2, #-0x4
}

TEST(A64DirectBranchTarget, TestBitBranches) {
  EXPECT_EQ(A64DirectBranchTarget(0x362800e3u, kAt), kAt + 0x1c);    // tbz w3, #5, #0x1c
  EXPECT_EQ(A64DirectBranchTarget(0xb7440004u, kAt), kAt - 0x8000);  // tbnz x4, #40, #-0x8000
}

TEST(A64DirectBranchTarget, TargetsWrapAroundTheAddressSpace) {
  // A kernel address: the sum is taken modulo 2^64, as the hardware does.
  EXPECT_EQ(A64DirectBranchTarget(0x17fffffeu, 0xffff800008010000), 0xffff80000800fff8u);
  EXPECT_EQ(A64DirectBranchTarget(0x17fffffeu, 0x4), 0xfffffffffffffffcu);
}

TEST(A64DirectBranchTarget, IndirectBranchesHaveNoTarget) {
  EXPECT_EQ(A64DirectBranchTarget(0xd61f0200u, kAt), std::nullopt);  // br x16
  EXPECT_EQ(A64DirectBranchTarget(0xd63f0100u, kAt), std::nullopt);  // blr x8
  EXPECT_EQ(A64DirectBranchTarget(0xd65f03c0u, kAt), std::nullopt);  // ret
  EXPECT_EQ(A64DirectBranchTarget(0xd65f0060u, kAt), std::nullopt);  // ret x3
  EXPECT_EQ(A64DirectBranchTarget(0xd69f03e0u, kAt), std::nullopt);  // eret
}

TEST(A64DirectBranchTarget, OtherInstructionsAreNotBranches) {
  EXPECT_EQ(A64DirectBranchTarget(0x8b020020u, kAt), std::nullopt);  // add x0, x1, x2
  EXPECT_EQ(A64DirectBranchTarget(0xd503201fu, kAt), std::nullopt);  // nop
  // PC-relative but not branches: the offset is data's, not a target.
  EXPECT_EQ(A64DirectBranchTarget(0x58000200u, kAt), std::nullopt);  // ldr x0, #0x40
  EXPECT_EQ(A64DirectBranchTarget(0x10000200u, kAt), std::nullopt);  // adr x0, #0x40
}

}  // namespace
}  // namespace perftk::cs_etm
