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
  RegisterDump regs;
  std::vector<std::byte> stack;
  uint64_t return_addresses[2] = {};  // of Grab, then of Middle
};

constexpr uint64_t kPerfRecordMask = 0xff0fff;

// The registers in perf's order for kPerfRecordMask (AX BX CX DX SI DI BP SP
// IP FLAGS CS SS R8..R15).
RegisterDump PerfDumpOf(const ucontext_t& context) {
  const greg_t* g = context.uc_mcontext.gregs;
  RegisterDump dump;
  dump.abi = 2;
  for (int reg :
       {REG_RAX, REG_RBX, REG_RCX, REG_RDX, REG_RSI, REG_RDI, REG_RBP, REG_RSP, REG_RIP, REG_EFL}) {
    dump.values.push_back(static_cast<uint64_t>(g[reg]));
  }
  dump.values.push_back(0);  // CS
  dump.values.push_back(0);  // SS
  for (int reg : {REG_R8, REG_R9, REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15}) {
    dump.values.push_back(static_cast<uint64_t>(g[reg]));
  }
  return dump;
}

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
        InitialRegistersOf(Arch::kX86_64, kPerfRecordMask, capture.regs);
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
  EXPECT_EQ(stack.frames[0], capture.regs.values[8]);
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
  MapOver(before.frames[0], self_->dsos.Intern(code->name, "", machine::FileId{1, 2, 3, 4}, false));
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
  MapOver(registers.pc, self_->dsos.Intern("/nonexistent/prog", "", machine::FileId{}, false));
  UnwoundStack stack = unwinder_.Unwind(getpid(), registers, capture.stack, 127);
  EXPECT_TRUE(stack.frames.empty());
  EXPECT_EQ(stack.stop, UnwindStop::kUnknownMap);
}

#endif  // __x86_64__

}  // namespace
}  // namespace perftk::unwind
