// The ground truth of the generator: walks hand-assembled code the way a CPU
// would, given branch decisions, and reports each executed stretch of
// instructions up to and including the instruction that moves control
// elsewhere (a branch, a return, a syscall, an exception return).
//
// A thread runs one user program (loaded at its process's base) at EL0 and
// one kernel program (at its link address) at EL1: SVC enters the kernel
// vector, ERET returns after the SVC. BL pushes a return address that RET
// pops. Conditional branches ask the thread's Decider.
#ifndef PERFTK_TESTS_CS_ETM_GEN_SIMULATOR_H_
#define PERFTK_TESTS_CS_ETM_GEN_SIMULATOR_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "a64.h"
#include "absl/status/statusor.h"

namespace perftk::etm_gen {

// Code loaded in memory: word i of `words` is at runtime address
// base + text_offset + 4 * i.
struct LoadedCode {
  uint64_t base = 0;         // runtime address of file offset 0
  uint64_t text_offset = 0;  // file offset of the first word
  const std::vector<uint32_t>* words = nullptr;

  bool Contains(uint64_t address) const;
  uint32_t WordAt(uint64_t address) const;
  uint64_t start() const { return base + text_offset; }
};

// Whether the conditional branch at `address` (runtime) is taken.
using Decider = std::function<bool(uint64_t address)>;

struct ThreadState {
  int32_t pid = 0;
  int32_t tid = 0;
  LoadedCode user;
  LoadedCode kernel;
  LoadedCode module;           // a kernel module's text (EL1), if any
  uint64_t kernel_vector = 0;  // where SVC enters EL1
  uint64_t pc = 0;
  int8_t el = 0;
  std::vector<uint64_t> return_stack;
  uint64_t exception_return = 0;
  Decider decide;
};

// One executed stretch: [start, end), the last instruction moves control.
struct Step {
  uint64_t start = 0;
  uint64_t end = 0;
  uint32_t instructions = 0;
  int8_t el = 0;
  Flow flow = Flow::kNext;
  bool taken = false;  // control went to `next` by a branch or exception
  uint64_t next = 0;
  uint64_t last() const { return end - 4; }
};

// Executes up to the next control-flow instruction; errors if the thread
// leaves its code or returns with an empty return stack.
absl::StatusOr<Step> Execute(ThreadState& thread);

}  // namespace perftk::etm_gen

#endif  // PERFTK_TESTS_CS_ETM_GEN_SIMULATOR_H_
