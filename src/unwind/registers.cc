#include "unwind/registers.h"

#include <bit>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"

namespace perftk::unwind {
namespace {

// perf register number of DWARF register i (x86-64 psABI: rax, rdx, rcx,
// rbx, rsi, rdi, rbp, rsp, r8-r15, then the return address column, rip).
constexpr int kX86PerfOfDwarf[] = {0, 3, 2, 1, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23, 8};
constexpr int kX86PerfIp = 8;
constexpr int kX86PerfSp = 7;

// AAPCS64: DWARF 0-30 are x0-x30 and 31 is sp, the same numbers as perf's
// PERF_REG_ARM64_X0..LR, SP; the pc (perf 32) has no DWARF column here.
constexpr int kArm64DwarfRegisters = 32;
constexpr int kArm64PerfPc = 32;
constexpr int kArm64PerfSp = 31;

// The value of perf register `perf_reg`, if the mask recorded it.
std::optional<uint64_t> PerfRegister(uint64_t mask, const perf::RegisterDump& regs, int perf_reg) {
  if (perf_reg >= 64 || ((mask >> perf_reg) & 1) == 0) return std::nullopt;
  const size_t index = std::popcount(mask & ((uint64_t{1} << perf_reg) - 1));
  return regs.values[index];
}

}  // namespace

std::optional<Arch> ArchFromName(absl::string_view name) {
  if (name == "x86_64") return Arch::kX86_64;
  if (name == "aarch64" || name == "arm64") return Arch::kAarch64;
  return std::nullopt;
}

absl::StatusOr<InitialRegisters> InitialRegistersOf(Arch arch, uint64_t mask,
                                                    const perf::RegisterDump& regs) {
  if (regs.abi == 0) return absl::InvalidArgumentError("the sample has no user registers");
  if (regs.values.size() < static_cast<size_t>(std::popcount(mask))) {
    return absl::InvalidArgumentError(absl::StrFormat("%u user register values for a mask of %d",
                                                      regs.values.size(), std::popcount(mask)));
  }
  InitialRegisters out;
  std::optional<uint64_t> pc, sp;
  if (arch == Arch::kX86_64) {
    for (int dwarf = 0; dwarf < static_cast<int>(std::size(kX86PerfOfDwarf)); ++dwarf) {
      if (std::optional<uint64_t> v = PerfRegister(mask, regs, kX86PerfOfDwarf[dwarf])) {
        out.registers.push_back({dwarf, *v});
      }
    }
    pc = PerfRegister(mask, regs, kX86PerfIp);
    sp = PerfRegister(mask, regs, kX86PerfSp);
  } else {
    for (int dwarf = 0; dwarf < kArm64DwarfRegisters; ++dwarf) {
      if (std::optional<uint64_t> v = PerfRegister(mask, regs, dwarf)) {
        out.registers.push_back({dwarf, *v});
      }
    }
    pc = PerfRegister(mask, regs, kArm64PerfPc);
    sp = PerfRegister(mask, regs, kArm64PerfSp);
  }
  if (!pc || !sp) {
    return absl::InvalidArgumentError(
        absl::StrFormat("sample_regs_user %#x lacks the pc or the stack pointer", mask));
  }
  out.pc = *pc;
  out.sp = *sp;
  return out;
}

}  // namespace perftk::unwind
