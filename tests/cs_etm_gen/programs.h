// The programs the generator traces: a user binary with a loop that calls a
// counted leaf loop, a two-way function and (when a branch decides so) a
// syscall, and a kernel image whose SVC handler loops and returns with ERET.
// Both are hand-assembled (a64.h) and written as ELF files (elf_writer.h).
#ifndef PERFTK_TESTS_CS_ETM_GEN_PROGRAMS_H_
#define PERFTK_TESTS_CS_ETM_GEN_PROGRAMS_H_

#include <cstdint>
#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "elf_writer.h"
#include "simulator.h"

namespace perftk::etm_gen {

inline constexpr uint64_t kKernelBase = 0xffff800010000000ULL;

struct DemoPrograms {
  ElfImage user;    // link base 0: runtime address = process base + link address
  ElfImage kernel;  // linked at kKernelBase
  std::map<std::string, uint64_t> user_labels;  // link addresses
  uint64_t kernel_vector = 0;                   // runtime (= link) address
  // Where WriteTo put them.
  std::string user_path;
  std::string kernel_path;
};

absl::StatusOr<DemoPrograms> BuildDemoPrograms();
// Writes etm_demo and etm_kernel.elf into `dir` and records their paths.
absl::Status WriteTo(DemoPrograms& programs, const std::string& dir);

// Branch decisions from a seeded generator: a conditional branch is taken
// with probability `taken_per_mille`/1000, except the branch that skips the
// syscall, taken (no syscall) with probability 1 - `syscall_per_mille`/1000.
Decider RandomDecider(const DemoPrograms& programs, uint64_t process_base, uint64_t seed,
                      int taken_per_mille, int syscall_per_mille);

// A thread of process `pid` (binary at `base`) at the program's entry.
ThreadState MakeThread(const DemoPrograms& programs, int32_t pid, int32_t tid, uint64_t base,
                       Decider decide);

}  // namespace perftk::etm_gen

#endif  // PERFTK_TESTS_CS_ETM_GEN_PROGRAMS_H_
