#include "unwind/registers.h"

#include <cstdint>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace perftk::unwind {
namespace {

using ::testing::ElementsAreArray;

// A dump whose value for perf register r is 0x1000 + r, for every bit of mask.
perf::RegisterDump DumpOf(uint64_t mask) {
  perf::RegisterDump dump;
  dump.abi = 2;  // PERF_SAMPLE_REGS_ABI_64
  for (int r = 0; r < 64; ++r) {
    if ((mask >> r) & 1) dump.values.push_back(0x1000 + r);
  }
  return dump;
}

TEST(ArchFromNameTest, KnowsTheTwoUnwoundArchitectures) {
  EXPECT_EQ(ArchFromName("x86_64"), Arch::kX86_64);
  EXPECT_EQ(ArchFromName("aarch64"), Arch::kAarch64);
  EXPECT_EQ(ArchFromName("arm64"), Arch::kAarch64);
  EXPECT_EQ(ArchFromName("s390x"), std::nullopt);
}

// perf record's x86_64 mask: AX..IP, FLAGS, CS, SS and R8..R15 (no DS..GS).
constexpr uint64_t kX86PerfRecordMask = 0xff0fff;

TEST(InitialRegistersTest, X86PutsPerfRegistersInDwarfOrder) {
  absl::StatusOr<InitialRegisters> regs =
      InitialRegistersOf(Arch::kX86_64, kX86PerfRecordMask, DumpOf(kX86PerfRecordMask));
  ASSERT_TRUE(regs.ok()) << regs.status();
  // DWARF: rax rdx rcx rbx rsi rdi rbp rsp r8..r15 rip; perf: AX=0 BX=1
  // CX=2 DX=3 SI=4 DI=5 BP=6 SP=7 IP=8 ... R8=16..R15=23.
  const DwarfRegister expected[] = {
      {0, 0x1000},  {1, 0x1003},  {2, 0x1002},  {3, 0x1001},  {4, 0x1004},  {5, 0x1005},
      {6, 0x1006},  {7, 0x1007},  {8, 0x1010},  {9, 0x1011},  {10, 0x1012}, {11, 0x1013},
      {12, 0x1014}, {13, 0x1015}, {14, 0x1016}, {15, 0x1017}, {16, 0x1008}};
  EXPECT_THAT(regs->registers, ElementsAreArray(expected));
  EXPECT_EQ(regs->pc, 0x1008u);
  EXPECT_EQ(regs->sp, 0x1007u);
}

TEST(InitialRegistersTest, X86ValuesFollowTheMaskNotThePerfNumber) {
  // Only BX (1), SP (7), IP (8) and R12 (20): the dump holds 4 values.
  const uint64_t mask = (1 << 1) | (1 << 7) | (1 << 8) | (1 << 20);
  perf::RegisterDump dump;
  dump.abi = 2;
  dump.values = {11, 77, 88, 2020};
  absl::StatusOr<InitialRegisters> regs = InitialRegistersOf(Arch::kX86_64, mask, dump);
  ASSERT_TRUE(regs.ok()) << regs.status();
  const DwarfRegister expected[] = {{3, 11}, {7, 77}, {12, 2020}, {16, 88}};
  EXPECT_THAT(regs->registers, ElementsAreArray(expected));
  EXPECT_EQ(regs->pc, 88u);
  EXPECT_EQ(regs->sp, 77u);
}

// perf record's arm64 mask: X0..X28, X29 (fp), LR, SP, PC.
constexpr uint64_t kArm64PerfRecordMask = (uint64_t{1} << 33) - 1;

TEST(InitialRegistersTest, Arm64MapsXnLrSpToTheirDwarfNumbersAndPcApart) {
  absl::StatusOr<InitialRegisters> regs =
      InitialRegistersOf(Arch::kAarch64, kArm64PerfRecordMask, DumpOf(kArm64PerfRecordMask));
  ASSERT_TRUE(regs.ok()) << regs.status();
  ASSERT_EQ(regs->registers.size(), 32u);
  for (int i = 0; i < 32; ++i) {
    EXPECT_EQ(regs->registers[i], (DwarfRegister{i, 0x1000u + i})) << "DWARF register " << i;
  }
  EXPECT_EQ(regs->registers[29].value, 0x1000u + 29);  // x29, the frame pointer
  EXPECT_EQ(regs->registers[30].value, 0x1000u + 30);  // x30, the link register
  EXPECT_EQ(regs->pc, 0x1000u + 32);                   // PERF_REG_ARM64_PC
  EXPECT_EQ(regs->sp, 0x1000u + 31);                   // PERF_REG_ARM64_SP
}

TEST(InitialRegistersTest, Arm64WithoutTheLinkRegisterLeavesDwarf30Unset) {
  const uint64_t mask = kArm64PerfRecordMask & ~(uint64_t{1} << 30);
  absl::StatusOr<InitialRegisters> regs = InitialRegistersOf(Arch::kAarch64, mask, DumpOf(mask));
  ASSERT_TRUE(regs.ok()) << regs.status();
  ASSERT_EQ(regs->registers.size(), 31u);
  EXPECT_EQ(regs->registers[29], (DwarfRegister{29, 0x1000u + 29}));
  EXPECT_EQ(regs->registers[30], (DwarfRegister{31, 0x1000u + 31}));
}

TEST(InitialRegistersTest, RefusesDumpsItCannotStartFrom) {
  perf::RegisterDump none;  // abi 0: a kernel thread has no user registers
  EXPECT_FALSE(InitialRegistersOf(Arch::kX86_64, kX86PerfRecordMask, none).ok());

  perf::RegisterDump short_dump = DumpOf(kX86PerfRecordMask);
  short_dump.values.pop_back();
  EXPECT_FALSE(InitialRegistersOf(Arch::kX86_64, kX86PerfRecordMask, short_dump).ok());

  const uint64_t no_sp = kX86PerfRecordMask & ~(uint64_t{1} << 7);
  EXPECT_FALSE(InitialRegistersOf(Arch::kX86_64, no_sp, DumpOf(no_sp)).ok());
  const uint64_t no_pc = kArm64PerfRecordMask & ~(uint64_t{1} << 32);
  EXPECT_FALSE(InitialRegistersOf(Arch::kAarch64, no_pc, DumpOf(no_pc)).ok());
}

}  // namespace
}  // namespace perftk::unwind
