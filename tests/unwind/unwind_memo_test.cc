// The bookkeeping behind taking frames over: the memo of one unwinding and
// the register uses of a step read from CFI.
#include "unwind/unwind_memo.h"

#include <dlfcn.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <vector>

#include "gtest/gtest.h"
#include "unwind/step_uses.h"

namespace perftk::unwind {
namespace {

RegisterSet SetOf(std::initializer_list<size_t> registers) {
  RegisterSet set;
  for (size_t regno : registers) set.Add(regno);
  return set;
}

TEST(RegisterSetTest, HoldsRegistersUpToItsLimit) {
  RegisterSet set = SetOf({0, 7, 63, 64, 127, 128});
  EXPECT_TRUE(set.Has(0) && set.Has(7) && set.Has(63) && set.Has(64) && set.Has(127));
  EXPECT_FALSE(set.Has(128)) << "out of range: left out";
  EXPECT_FALSE(set.Has(1));
  EXPECT_TRUE(SetOf({7}).SubsetOf(set));
  EXPECT_FALSE(SetOf({1, 7}).SubsetOf(set));
  EXPECT_TRUE(RegisterSet().empty());
  EXPECT_TRUE(set.SubsetOf(RegisterSet::All()));
}

TEST(UnwindMemoTest, AStateAgreesOnlyOnTheRegistersItDependsOn) {
  UnwindMemo memo;
  memo.Reset(1, 0);
  const std::vector<uint64_t> values = {10, 11, 12, 13};
  memo.AddState(0x100, RegisterSet(), RegisterSet(), {});  // not resumable
  memo.AddState(0x200, SetOf({0, 1, 2, 3}), SetOf({0, 1, 3}), values);
  memo.set_depends(1, SetOf({1, 2}));
  EXPECT_EQ(memo.FindPc(0x100), memo.states()) << "a state that is not resumable is never found";
  ASSERT_EQ(memo.FindPc(0x200), 1u);
  EXPECT_TRUE(memo.Resumable(1));

  std::vector<uint64_t> other = {99, 11, 0, 98};  // differs where nothing depends on it
  EXPECT_TRUE(memo.Agrees(1, SetOf({1, 2}), SetOf({1}), other));
  other[1] = 12;
  EXPECT_FALSE(memo.Agrees(1, SetOf({1, 2}), SetOf({1}), other)) << "a value it depends on";
  other[1] = 11;
  EXPECT_FALSE(memo.Agrees(1, SetOf({1, 2}), SetOf({1, 2}), other)) << "set here, unset there";
  EXPECT_FALSE(memo.Agrees(1, SetOf({1}), SetOf({1}), other)) << "register 2 was not read";
  EXPECT_FALSE(memo.Agrees(1, SetOf({1, 2}), SetOf({1}), std::vector<uint64_t>(3)))
      << "another number of registers";

  memo.set_depends(1, SetOf({1, 5}));  // 5 was never read for the state
  EXPECT_FALSE(memo.Resumable(1));
  EXPECT_FALSE(memo.Agrees(1, RegisterSet::All(), SetOf({1}), values));
}

TEST(UnwindMemoTest, ATailKeepsItsStatesReadsAndEnding) {
  const std::vector<uint64_t> row = {1, 2};
  UnwindMemo earlier;
  earlier.Reset(1, 0);
  earlier.AddState(0xa, RegisterSet(), RegisterSet(), {});
  earlier.AddRead({.addr = 0x1000, .value = 1, .ok = true});
  earlier.AddState(0xb, SetOf({0, 1}), SetOf({0, 1}), row);
  earlier.AddRead({.addr = 0x1008, .value = 2, .ok = true, .matters = false});
  earlier.AddRead({.addr = 0x1010, .value = 3, .ok = true});
  earlier.AddState(0xc, SetOf({0, 1}), SetOf({0}), row);
  earlier.AddRead({.addr = 0x1018, .value = 0, .ok = false});
  earlier.set_depends(1, SetOf({1}));
  earlier.set_depends(2, SetOf({0}));
  earlier.frames() = {0xa, 0xb - 1, 0xc - 1};
  earlier.ending() = {.last_module_ready = true, .guess_dropped = true, .result = -1};

  ASSERT_EQ(earlier.StepReads(1).size(), 2u);
  EXPECT_EQ(earlier.StepReads(1)[0].addr, 0x1008u);
  EXPECT_FALSE(earlier.StepReads(1)[0].matters);
  ASSERT_EQ(earlier.ReadsFrom(1).size(), 3u);
  EXPECT_EQ(earlier.StepReads(2).size(), 1u);

  UnwindMemo later;
  later.Reset(1, 0);
  later.AddState(0x5, RegisterSet(), RegisterSet(), {});
  later.AddRead({.addr = 0x2000, .value = 7, .ok = true});
  later.AppendTail(earlier, 1);
  ASSERT_EQ(later.states(), 3u);
  EXPECT_EQ(later.FindPc(0xb), 1u);
  EXPECT_EQ(later.depends(1), SetOf({1}));
  EXPECT_EQ(later.depends(2), SetOf({0}));
  ASSERT_EQ(later.StepReads(0).size(), 1u) << "its own reads end where the tail's begin";
  ASSERT_EQ(later.ReadsFrom(1).size(), 3u);
  EXPECT_EQ(later.ReadsFrom(1)[0].addr, 0x1008u);
  EXPECT_EQ(later.ReadsFrom(2)[0].addr, 0x1018u);
  EXPECT_FALSE(later.ReadsFrom(2)[0].ok);
  EXPECT_TRUE(later.Agrees(2, SetOf({0}), SetOf({0}), row));
  EXPECT_TRUE(later.ending().guess_dropped);
  EXPECT_EQ(later.ending().result, -1);
}

TEST(StepUsesTest, CopiedRegistersCountOnlyWhenSomethingLaterNeedsThem) {
  StepUses step;
  step.described = true;
  step.always = SetOf({7});
  step.copies = {{3, SetOf({3})}, {0, SetOf({0})}, {6, SetOf({4, 5})}};
  EXPECT_EQ(step.Before(RegisterSet()), SetOf({7}));
  EXPECT_EQ(step.Before(SetOf({6})), SetOf({4, 5, 7}));
  EXPECT_EQ(step.Before(SetOf({3, 0})), SetOf({0, 3, 7}));
  EXPECT_EQ(step.Before(SetOf({6})), SetOf({4, 5, 7})) << "asked again after another question";
  StepUses unknown;
  EXPECT_EQ(unknown.Before(RegisterSet()), RegisterSet::All()) << "no CFI: libdw's guess reads any";
}

TEST(StepUsesTest, AReadMattersWhenItsRegisterIsNeededOrIsTheReturnAddress) {
  StepUses step;
  step.described = true;
  step.simple = true;
  step.loaded = {3, 6, 16};
  step.return_address = 16;
  EXPECT_FALSE(step.ValueMatters(0, 3, SetOf({7})));
  EXPECT_TRUE(step.ValueMatters(1, 3, SetOf({6})));
  EXPECT_TRUE(step.ValueMatters(2, 3, RegisterSet()));
  EXPECT_TRUE(step.ValueMatters(0, 2, SetOf({7}))) << "another number of reads: no telling which";
  step.simple = false;
  EXPECT_TRUE(step.ValueMatters(0, 3, SetOf({7})));
}

#if defined(__x86_64__)

__attribute__((noinline)) int AFunctionWithCfi(int n) {
  volatile int sum = 0;
  for (int i = 0; i < n; ++i) sum = sum + i;
  return sum;
}

TEST(StepUsesTest, ReadsTheRulesOfThisBinarysEhFrame) {
  Dl_info info;
  ASSERT_NE(dladdr(reinterpret_cast<void*>(&AFunctionWithCfi), &info), 0);
  elf_version(EV_CURRENT);
  const int fd = open(info.dli_fname, O_RDONLY);
  ASSERT_GE(fd, 0);
  Elf* elf = elf_begin(fd, ELF_C_READ, nullptr);
  ASSERT_NE(elf, nullptr);
  GElf_Ehdr ehdr;
  ASSERT_NE(gelf_getehdr(elf, &ehdr), nullptr);
  // A position-independent binary's addresses are relative to its base.
  const uint64_t base = ehdr.e_type == ET_DYN ? reinterpret_cast<uint64_t>(info.dli_fbase) : 0;
  Dwarf_CFI* cfi = dwarf_getcfi_elf(elf);
  ASSERT_NE(cfi, nullptr);
  Dwarf_Frame* frame = nullptr;
  const uint64_t pc = reinterpret_cast<uint64_t>(&AFunctionWithCfi) + 1 - base;
  ASSERT_EQ(dwarf_cfi_addrframe(cfi, pc, &frame), 0) << dwarf_errmsg(-1);
  const StepUses step = StepUsesOf(frame, 17);
  free(frame);
  EXPECT_TRUE(step.described);
  EXPECT_EQ(step.return_address, 16);
  // The CFA is the stack pointer plus an offset; the return address is read
  // from the CFA: the step reads rsp whatever comes next.
  EXPECT_TRUE(step.always.Has(7));
  EXPECT_TRUE(step.simple);
  ASSERT_FALSE(step.loaded.empty());
  EXPECT_EQ(step.loaded.back(), 16) << "the return address is read last (the highest register)";
  // Read without libdwfl, the CFI lacks the ABI's default rules: the other
  // registers are undefined, and nothing but the CFA's register is read.
  EXPECT_EQ(step.always, SetOf({7}));
  for (const auto& [regno, uses] : step.copies) {
    EXPECT_TRUE(uses.SubsetOf(SetOf({regno}))) << "register " << regno << " copied from others";
  }
  dwarf_cfi_end(cfi);
  elf_end(elf);
  close(fd);
}

#endif  // __x86_64__

}  // namespace
}  // namespace perftk::unwind
