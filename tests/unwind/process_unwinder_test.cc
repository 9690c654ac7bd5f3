// Unwinds this test's own stack, captured as perf captures a sample's:
// the registers at one instant and a copy of the stack from its pointer up.
#include "unwind/process_unwinder.h"

#include <ucontext.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "gtest/gtest.h"
#include "self_maps.h"
#include "unwind/module_files.h"
#include "unwind/registers.h"

namespace perftk::unwind {
namespace {

#if defined(__x86_64__)

// What a dwarf sample holds: perf's x86 register dump and the stack copy.
struct Capture {
  perf::RegisterDump regs;
  std::vector<std::byte> stack;
  uint64_t return_addresses[2] = {};  // of Grab, then of Middle
};

// Copies raw stack memory, as the kernel does for a sample: bytes ASan
// marks as redzones included, so neither the copy nor its checks are
// instrumented.
__attribute__((no_sanitize("address"))) void CopyRawStack(uint64_t sp, std::byte* out,
                                                          size_t size) {
  const volatile std::byte* from = reinterpret_cast<const volatile std::byte*>(sp);
  for (size_t i = 0; i < size; ++i) out[i] = from[i];
}

__attribute__((noinline)) void Grab(Capture& capture, const machine::Maps& maps, size_t size) {
  ucontext_t context;
  getcontext(&context);
  capture.regs = PerfDumpOf(context);
  capture.return_addresses[0] = reinterpret_cast<uint64_t>(__builtin_return_address(0));
  const uint64_t sp = static_cast<uint64_t>(context.uc_mcontext.gregs[REG_RSP]);
  const size_t copied = std::min<uint64_t>(size, MappingEnd(maps, sp) - sp);
  capture.stack.resize(copied);
  CopyRawStack(sp, capture.stack.data(), copied);
  asm volatile("" ::: "memory");
}

__attribute__((noinline)) void Middle(Capture& capture, const machine::Maps& maps, size_t size) {
  Grab(capture, maps, size);
  capture.return_addresses[1] = reinterpret_cast<uint64_t>(__builtin_return_address(0));
  asm volatile("" ::: "memory");
}

class ProcessUnwinderTest : public ::testing::Test {
 protected:
  // The registers of a capture of stack_size bytes of this thread's stack.
  InitialRegisters CaptureRegisters(size_t stack_size, Capture& capture) {
    Middle(capture, *self_->maps, stack_size);
    absl::StatusOr<InitialRegisters> registers =
        InitialRegistersOf(Arch::kX86_64, kPerfRegsMask, capture.regs);
    EXPECT_TRUE(registers.ok()) << registers.status();
    return registers.value_or(InitialRegisters{});
  }

  UnwoundStack UnwindOwnStack(size_t stack_size, size_t max_frames, Capture& capture) {
    const InitialRegisters registers = CaptureRegisters(stack_size, capture);
    return unwinder_.Unwind(getpid(), registers, capture.stack, max_frames);
  }

  // Maps `dso` over the mapping that holds addr, as an mmap over it would.
  void MapOver(uint64_t addr, const machine::Dso* dso) {
    std::optional<machine::Map> code = self_->maps->Find(addr);
    ASSERT_TRUE(code.has_value());
    machine::Map over = *code;
    over.dso = dso;
    ASSERT_TRUE(self_->maps->Mutate([&](machine::Maps::Editor& e) { return e.Insert(over); }).ok());
  }

  std::unique_ptr<SelfMaps> self_ = ReadSelfMaps();
  ModuleFiles files_{"", {}};
  ProcessUnwinder unwinder_{getpid(), self_->maps, files_};
};

TEST_F(ProcessUnwinderTest, FindsTheCallersThroughTheStackCopy) {
  Capture capture;
  UnwoundStack stack = UnwindOwnStack(64 * 1024, 127, capture);
  ASSERT_GE(stack.frames.size(), 4u);
  // Grab's pc after getcontext, then its callers' call sites (return - 1).
  EXPECT_EQ(stack.frames[0], capture.regs.values[kPerfIpRegister]);
  EXPECT_EQ(stack.frames[1], capture.return_addresses[0] - 1);
  EXPECT_EQ(stack.frames[2], capture.return_addresses[1] - 1);
  EXPECT_EQ(stack.stop, UnwindStop::kOutermost) << stack.frames.size() << " frames";
}

TEST_F(ProcessUnwinderTest, AShortCopyStopsWithTheReasonAndNoGuess) {
  Capture capture;
  UnwoundStack full = UnwindOwnStack(64 * 1024, 127, capture);
  UnwoundStack part = UnwindOwnStack(2048, 127, capture);
  EXPECT_EQ(part.stop, UnwindStop::kStackTooShort);
  ASSERT_LT(part.frames.size(), full.frames.size());
  EXPECT_GE(part.frames.size(), 2u);
}

TEST_F(ProcessUnwinderTest, StopsAtTheFrameLimit) {
  Capture capture;
  UnwoundStack stack = UnwindOwnStack(64 * 1024, 3, capture);
  EXPECT_EQ(stack.frames.size(), 3u);
  EXPECT_EQ(stack.stop, UnwindStop::kDepthLimit);
}

TEST_F(ProcessUnwinderTest, APcInNoMappingUnwindsNothing) {
  Capture capture;
  InitialRegisters registers = CaptureRegisters(4096, capture);
  registers.pc = 0x10;  // below every mapping
  UnwoundStack stack = unwinder_.Unwind(getpid(), registers, capture.stack, 127);
  EXPECT_TRUE(stack.frames.empty());
  EXPECT_EQ(stack.stop, UnwindStop::kUnknownMap);
}

TEST_F(ProcessUnwinderTest, AMappingThatChangedUnderAModuleIsReportedAfresh) {
  Capture capture;
  UnwoundStack before = UnwindOwnStack(64 * 1024, 127, capture);
  ASSERT_GE(before.frames.size(), 3u);
  EXPECT_EQ(unwinder_.rebuilds(), 0u);
  // Another object (another inode) mapped where the test binary's code was:
  // the module reported for it is stale and must not be used again.
  const machine::Dso* code = self_->maps->Find(before.frames[0])->dso;
  MapOver(before.frames[0],
          self_->dsos.Intern(code->name, base::BuildId(), machine::FileId{1, 2, 3, 4}, false));
  Capture again;
  UnwoundStack after = UnwindOwnStack(64 * 1024, 127, again);
  EXPECT_EQ(unwinder_.rebuilds(), 1u);
  ASSERT_GE(after.frames.size(), 3u);
  EXPECT_EQ(after.frames[1], again.return_addresses[0] - 1);
  EXPECT_EQ(after.stop, UnwindStop::kOutermost);
  UnwindOwnStack(64 * 1024, 127, again);
  EXPECT_EQ(unwinder_.rebuilds(), 1u) << "the fresh module is current";
}

TEST_F(ProcessUnwinderTest, AFileNotFoundUnwindsNothing) {
  Capture capture;
  const InitialRegisters registers = CaptureRegisters(4096, capture);
  MapOver(registers.pc,
          self_->dsos.Intern("/nonexistent/prog", base::BuildId(), machine::FileId{}, false));
  UnwoundStack stack = unwinder_.Unwind(getpid(), registers, capture.stack, 127);
  EXPECT_TRUE(stack.frames.empty());
  EXPECT_EQ(stack.stop, UnwindStop::kUnknownMap);
}

// Frames taken over from a thread's previous unwinding must be exactly what
// libdw finds without them: each case is unwound by unwinder_ (which takes
// over) after a first sample, and by a fresh unwinder that unwinds every
// frame.
class TakeOverTest : public ProcessUnwinderTest {
 protected:
  UnwoundStack UnwindEveryFrame(const InitialRegisters& registers, base::Bytes stack) {
    ProcessUnwinder every_frame(getpid(), self_->maps, files_, /*take_over_frames=*/false);
    return every_frame.Unwind(getpid(), registers, stack, 127);
  }

  static void ExpectSame(const UnwoundStack& taken, const UnwoundStack& unwound) {
    EXPECT_EQ(taken.frames, unwound.frames);
    EXPECT_EQ(taken.stop, unwound.stop);
    EXPECT_EQ(unwound.taken_over, 0u);
  }
};

TEST_F(TakeOverTest, TheSameStackAgainTakesItsOuterFramesOver) {
  Capture capture;
  const InitialRegisters registers = CaptureRegisters(64 * 1024, capture);
  const UnwoundStack first = unwinder_.Unwind(getpid(), registers, capture.stack, 127);
  EXPECT_EQ(first.taken_over, 0u);
  const UnwoundStack again = unwinder_.Unwind(getpid(), registers, capture.stack, 127);
  ASSERT_GE(again.frames.size(), 4u);
  // All but the first two frames (the first two states are never resumed).
  EXPECT_EQ(again.taken_over, again.frames.size() - 2);
  ExpectSame(again, first);
}

TEST_F(TakeOverTest, ARegisterNothingAboveReadsStillLetsFramesBeTakenOver) {
  Capture capture;
  InitialRegisters registers = CaptureRegisters(64 * 1024, capture);
  const UnwoundStack first = unwinder_.Unwind(getpid(), registers, capture.stack, 127);
  // rax (DWARF 0) is carried up as the same value, frame after frame, but
  // no rule above reads it.
  ASSERT_EQ(registers.registers[0].number, 0);
  registers.registers[0].value ^= 0x5a5a;
  const UnwoundStack again = unwinder_.Unwind(getpid(), registers, capture.stack, 127);
  EXPECT_GT(again.taken_over, 0u);
  ExpectSame(again, UnwindEveryFrame(registers, capture.stack));
  EXPECT_EQ(again.frames, first.frames);
}

TEST_F(TakeOverTest, AnotherThreadDoesNotTakeOverFromThisOne) {
  Capture capture;
  const InitialRegisters registers = CaptureRegisters(64 * 1024, capture);
  unwinder_.Unwind(getpid(), registers, capture.stack, 127);
  const UnwoundStack other = unwinder_.Unwind(getpid() + 1, registers, capture.stack, 127);
  EXPECT_EQ(other.taken_over, 0u);
  ExpectSame(other, UnwindEveryFrame(registers, capture.stack));
}

TEST_F(TakeOverTest, AChangedReturnAddressAboveIsFollowed) {
  Capture capture;
  const InitialRegisters registers = CaptureRegisters(64 * 1024, capture);
  const UnwoundStack first = unwinder_.Unwind(getpid(), registers, capture.stack, 127);
  ASSERT_GE(first.frames.size(), 5u);
  // The return address of frame 3 (frame 4's call site + 1), where the copy
  // holds it, replaced by frame 2's: the unwinding from there on differs,
  // and must not be taken over from the first one.
  std::vector<std::byte> changed = capture.stack;
  const uint64_t old_return = first.frames[4] + 1;
  const uint64_t new_return = first.frames[2] + 1;
  size_t replaced = 0;
  for (size_t at = 0; at + 8 <= changed.size(); at += 8) {
    uint64_t word = 0;
    std::memcpy(&word, changed.data() + at, 8);
    if (word == old_return && replaced++ == 0) std::memcpy(changed.data() + at, &new_return, 8);
  }
  ASSERT_GE(replaced, 1u) << "frame 4's return address is not on the copied stack";
  const UnwoundStack taken = unwinder_.Unwind(getpid(), registers, changed, 127);
  const UnwoundStack unwound = UnwindEveryFrame(registers, changed);
  ExpectSame(taken, unwound);
  ASSERT_GE(unwound.frames.size(), 5u);
  EXPECT_EQ(unwound.frames[4], first.frames[2]);
}

TEST_F(TakeOverTest, AShorterCopyIsNotTakenOverPastItsEnd) {
  Capture capture;
  const InitialRegisters registers = CaptureRegisters(64 * 1024, capture);
  unwinder_.Unwind(getpid(), registers, capture.stack, 127);
  const base::Bytes part(capture.stack.data(), 2048);
  const UnwoundStack taken = unwinder_.Unwind(getpid(), registers, part, 127);
  const UnwoundStack unwound = UnwindEveryFrame(registers, part);
  ExpectSame(taken, unwound);
  EXPECT_EQ(taken.stop, UnwindStop::kStackTooShort);
}

TEST_F(TakeOverTest, FramesTakenOverStopAtTheFrameLimit) {
  Capture capture;
  const InitialRegisters registers = CaptureRegisters(64 * 1024, capture);
  const UnwoundStack first = unwinder_.Unwind(getpid(), registers, capture.stack, 127);
  ASSERT_GE(first.frames.size(), 5u);
  const UnwoundStack cut = unwinder_.Unwind(getpid(), registers, capture.stack, 4);
  EXPECT_EQ(cut.stop, UnwindStop::kDepthLimit);
  EXPECT_EQ(cut.frames, std::vector<uint64_t>(first.frames.begin(), first.frames.begin() + 4));
  // A cut unwinding is not taken over from: the next one unwinds again.
  const UnwoundStack after = unwinder_.Unwind(getpid(), registers, capture.stack, 127);
  EXPECT_EQ(after.taken_over, 0u);
  EXPECT_EQ(after.frames, first.frames);
}

TEST_F(TakeOverTest, AChangedMappingOutdatesWhatWasTakenOver) {
  Capture capture;
  const InitialRegisters registers = CaptureRegisters(64 * 1024, capture);
  const UnwoundStack first = unwinder_.Unwind(getpid(), registers, capture.stack, 127);
  ASSERT_GE(first.frames.size(), 4u);
  // Nothing the unwinding read changed, but the maps did: start over.
  MapOver(first.frames[0], self_->maps->Find(first.frames[0])->dso);
  const UnwoundStack after = unwinder_.Unwind(getpid(), registers, capture.stack, 127);
  EXPECT_EQ(after.taken_over, 0u);
  EXPECT_EQ(after.frames, first.frames);
}

#endif  // __x86_64__

}  // namespace
}  // namespace perftk::unwind
