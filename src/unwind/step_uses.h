// Which registers of a frame's state libdw's step to the caller's state
// reads, found from the frame's CFI rules (libdw's dwarf_frame_cfa and
// dwarf_frame_register; nothing is evaluated here).
//
// libdw computes each register of the caller's state by its rule: undefined,
// the same value, or a DWARF expression over registers and the CFA (itself
// an expression over registers), often read from memory there. A rule that
// reads memory is evaluated whatever becomes of its register, so its
// registers decide which address is read, and the step depends on them
// always; so does the return address rule (the caller's pc). A rule that
// does not read memory only copies or combines registers: the step depends
// on its registers when something later depends on its register.
//
// An over-approximation is always safe: a rule this file cannot read (an
// unknown operation) counts as reading every register.
#ifndef PERFTK_UNWIND_STEP_USES_H_
#define PERFTK_UNWIND_STEP_USES_H_

#include <elfutils/libdw.h>

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace perftk::unwind {

// DWARF register numbers 0 .. kMaxRegisters - 1.
class RegisterSet {
 public:
  static constexpr size_t kMaxRegisters = 128;

  static RegisterSet All() {
    RegisterSet all;
    all.words_[0] = all.words_[1] = ~uint64_t{0};
    return all;
  }
  // Register numbers out of range are left out.
  void Add(size_t regno) {
    if (regno < kMaxRegisters) words_[regno / 64] |= uint64_t{1} << (regno % 64);
  }
  bool Has(size_t regno) const {
    return regno < kMaxRegisters && (words_[regno / 64] >> (regno % 64) & 1) != 0;
  }
  bool empty() const { return (words_[0] | words_[1]) == 0; }
  bool SubsetOf(const RegisterSet& other) const {
    return (words_[0] & ~other.words_[0]) == 0 && (words_[1] & ~other.words_[1]) == 0;
  }
  RegisterSet& operator|=(const RegisterSet& other) {
    words_[0] |= other.words_[0];
    words_[1] |= other.words_[1];
    return *this;
  }
  uint64_t word(size_t i) const { return words_[i]; }
  friend bool operator==(const RegisterSet&, const RegisterSet&) = default;

 private:
  uint64_t words_[2] = {0, 0};
};

struct StepUses {
  // Whether CFI describes the step; without it libdw falls back to its
  // architecture's guess, which may read any register.
  bool described = false;
  // Registers the step reads whatever the rest needs.
  RegisterSet always;
  // Caller registers computed from these registers without a memory read.
  std::vector<std::pair<uint16_t, RegisterSet>> copies;
  // When every rule reads memory at most once, where its register is saved
  // (and the CFA reads none): the registers so read, in libdw's order. Read
  // q of the step then gives register loaded[q]; otherwise `simple` is false.
  bool simple = false;
  std::vector<uint16_t> loaded;
  int return_address = -1;  // the register holding the caller's pc
  // The return address rule is "undefined": the frame has no caller (_start).
  bool outermost = false;
  // The registers the last unwinding that stepped from this pc depended on
  // here: the ones worth reading from a state at this pc (ProcessUnwinder).
  RegisterSet last_depends = RegisterSet::All();

  // Whether the value of read q of the step matters to the rest of the
  // unwinding, when it depends on `later` of the caller's state and the step
  // made `reads` reads.
  bool ValueMatters(size_t q, size_t reads, const RegisterSet& later) const;

  // The registers of this state the rest of the unwinding depends on, when
  // it depends on `later` of the caller's state. The last answer is kept:
  // the same `later` comes back sample after sample.
  RegisterSet Before(const RegisterSet& later) const;

 private:
  mutable bool answered_ = false;
  mutable RegisterSet asked_;
  mutable RegisterSet answer_;
};

// The uses of the step `frame` (from dwarf_cfi_addrframe) describes, for a
// state of `registers` DWARF registers.
StepUses StepUsesOf(Dwarf_Frame* frame, size_t registers);

}  // namespace perftk::unwind

#endif  // PERFTK_UNWIND_STEP_USES_H_
