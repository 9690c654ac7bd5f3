#include "simulator.h"

#include "absl/strings/str_format.h"

namespace perftk::etm_gen {

bool LoadedCode::Contains(uint64_t address) const {
  return words != nullptr && address >= start() && address < start() + 4 * words->size() &&
         address % 4 == 0;
}

uint32_t LoadedCode::WordAt(uint64_t address) const { return (*words)[(address - start()) / 4]; }

absl::StatusOr<Step> Execute(ThreadState& thread) {
  Step step;
  step.start = thread.pc;
  step.el = thread.el;
  const LoadedCode& code = thread.el == 0                      ? thread.user
                           : thread.module.Contains(thread.pc) ? thread.module
                                                               : thread.kernel;
  uint64_t pc = thread.pc;
  for (;;) {
    if (!code.Contains(pc)) {
      return absl::OutOfRangeError(
          absl::StrFormat("thread %d left its EL%d code at %#x", thread.tid, thread.el, pc));
    }
    Decoded insn = Classify(code.WordAt(pc));
    ++step.instructions;
    if (insn.flow == Flow::kNext) {
      pc += 4;
      continue;
    }
    step.flow = insn.flow;
    step.end = pc + 4;
    const uint64_t target = pc + static_cast<uint64_t>(insn.offset);
    switch (insn.flow) {
      case Flow::kBranch:
        step.taken = true;
        step.next = target;
        break;
      case Flow::kCall:
        step.taken = true;
        step.next = target;
        thread.return_stack.push_back(pc + 4);
        break;
      case Flow::kCondBranch:
        step.taken = thread.decide(pc);
        step.next = step.taken ? target : pc + 4;
        break;
      case Flow::kReturn:
        if (thread.return_stack.empty()) {
          return absl::FailedPreconditionError(absl::StrFormat(
              "thread %d returns at %#x with nothing to return to", thread.tid, pc));
        }
        step.taken = true;
        step.next = thread.return_stack.back();
        thread.return_stack.pop_back();
        break;
      case Flow::kSyscall:
        step.taken = true;
        step.next = thread.kernel_vector;
        thread.exception_return = pc + 4;
        thread.el = 1;
        break;
      case Flow::kExceptionReturn:
        step.taken = true;
        step.next = thread.exception_return;
        thread.el = 0;
        break;
      case Flow::kNext:
        break;
    }
    thread.pc = step.next;
    return step;
  }
}

}  // namespace perftk::etm_gen
