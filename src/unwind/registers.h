// The user registers of a sample (PERF_SAMPLE_REGS_USER, in perf's register
// numbering and the attr's sample_regs_user order) as the DWARF registers
// libdw's unwinder starts from.
//
// perf numbers registers per architecture (PERF_REG_X86_*, PERF_REG_ARM64_*
// in the kernel's uapi asm/perf_regs.h); DWARF numbers them per psABI. A
// register the mask leaves out is simply not set; the pc and the stack
// pointer are required.
#ifndef PERFTK_UNWIND_REGISTERS_H_
#define PERFTK_UNWIND_REGISTERS_H_

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "perf/sample.h"

namespace perftk::unwind {

enum class Arch { kX86_64, kAarch64 };

// The architecture named by the ARCH feature (`uname -m`): "x86_64",
// "aarch64" or "arm64"; nullopt for any other.
std::optional<Arch> ArchFromName(absl::string_view name);

struct DwarfRegister {
  int number = 0;  // DWARF register number
  uint64_t value = 0;
  friend bool operator==(const DwarfRegister&, const DwarfRegister&) = default;
};

struct InitialRegisters {
  std::vector<DwarfRegister> registers;  // ascending DWARF numbers
  uint64_t pc = 0;
  uint64_t sp = 0;
};

// The DWARF registers of `regs`, recorded with `mask` (sample_regs_user).
// InvalidArgument when the dump is empty (abi 0: a kernel thread), has fewer
// values than the mask has bits, or lacks the pc or the stack pointer.
absl::StatusOr<InitialRegisters> InitialRegistersOf(Arch arch, uint64_t mask,
                                                    const perf::RegisterDump& regs);

}  // namespace perftk::unwind

#endif  // PERFTK_UNWIND_REGISTERS_H_
