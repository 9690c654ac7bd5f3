#include "machine/machine.h"

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "machine/events.h"
#include "machine/map.h"
#include "print_map.h"

namespace perftk::machine {
namespace {

using ::testing::Field;
using ::testing::Optional;

constexpr uint64_t kText = 0xffffffff81000000;

MmapEvent UserMmap(int32_t pid, int32_t tid, uint64_t start, uint64_t len, uint64_t pgoff,
                   std::string filename) {
  MmapEvent e;
  e.misc = PERF_RECORD_MISC_USER;
  e.pid = pid;
  e.tid = tid;
  e.start = start;
  e.len = len;
  e.pgoff = pgoff;
  e.filename = std::move(filename);
  e.prot = 5;  // PROT_READ | PROT_EXEC
  return e;
}

MmapEvent KernelMmap(uint64_t start, uint64_t len, uint64_t pgoff, std::string filename) {
  MmapEvent e = UserMmap(-1, 0, start, len, pgoff, std::move(filename));
  e.misc = PERF_RECORD_MISC_KERNEL;
  return e;
}

ForkEvent Fork(int32_t ppid, int32_t ptid, int32_t pid, int32_t tid) {
  ForkEvent e;
  e.ppid = ppid;
  e.ptid = ptid;
  e.pid = pid;
  e.tid = tid;
  return e;
}

ExitEvent Exit(int32_t pid, int32_t tid) {
  ExitEvent e;
  e.pid = e.ppid = pid;
  e.tid = e.ptid = tid;
  return e;
}

CommEvent Comm(int32_t pid, int32_t tid, std::string comm, bool exec) {
  CommEvent e;
  e.misc = exec ? PERF_RECORD_MISC_COMM_EXEC : 0;
  e.pid = pid;
  e.tid = tid;
  e.comm = std::move(comm);
  return e;
}

KsymbolEvent Ksymbol(uint64_t addr, uint32_t len, std::string name, bool unregister = false) {
  KsymbolEvent e;
  e.addr = addr;
  e.len = len;
  e.ksym_type = PERF_RECORD_KSYMBOL_TYPE_BPF;
  e.flags = unregister ? PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER : 0;
  e.name = std::move(name);
  return e;
}

std::string DsoNameAt(const Machine& m, int32_t pid, uint16_t cpumode, uint64_t addr) {
  std::optional<Map> map = m.FindMap(pid, cpumode, addr);
  if (!map.has_value()) return "(none)";
  return map->dso->name;
}

TEST(MachineTest, UserMmapIsFoundInItsProcessOnly) {
  Machine m;
  ASSERT_TRUE(m.Apply(UserMmap(10, 10, 0x400000, 0x1000, 0x2000, "/bin/a")).ok());
  std::optional<Map> map = m.FindMap(10, PERF_RECORD_MISC_USER, 0x400800);
  ASSERT_TRUE(map.has_value());
  EXPECT_EQ(map->start, 0x400000u);
  EXPECT_EQ(map->end, 0x401000u);
  EXPECT_EQ(map->pgoff, 0x2000u);
  EXPECT_EQ(map->prot, 5u);
  EXPECT_EQ(map->kind, MapKind::kFile);
  EXPECT_EQ(map->dso->name, "/bin/a");
  EXPECT_FALSE(map->dso->kernel_space);
  EXPECT_EQ(map->DsoAddress(0x400800), 0x2800u);
  EXPECT_EQ(m.FindMap(11, PERF_RECORD_MISC_USER, 0x400800), std::nullopt);
  EXPECT_EQ(m.FindMap(10, PERF_RECORD_MISC_KERNEL, 0x400800), std::nullopt);
}

TEST(MachineTest, UnknownPidIsCreatedOnFirstSight) {
  Machine m;
  EXPECT_EQ(m.FindThread(20), std::nullopt);
  ASSERT_TRUE(m.Apply(UserMmap(20, 21, 0x1000, 0x1000, 0, "/bin/b")).ok());
  std::optional<Thread> thread = m.FindThread(21);
  ASSERT_TRUE(thread.has_value());
  EXPECT_EQ(thread->pid, 20);
  EXPECT_EQ(thread->tid, 21);
  EXPECT_EQ(thread->comm, "");
  // The map went to the process, so any thread of pid 20 sees it.
  EXPECT_EQ(DsoNameAt(m, 20, PERF_RECORD_MISC_USER, 0x1000), "/bin/b");
  absl::StatusOr<Thread> sibling = m.FindOrAddThread(20, 22);
  ASSERT_TRUE(sibling.ok());
  EXPECT_EQ(sibling->maps, thread->maps);
  EXPECT_EQ(m.thread_count(), 2u);
  EXPECT_EQ(m.process_count(), 1u);
}

TEST(MachineTest, ForkOfAProcessCopiesTheParentsMaps) {
  Machine m;
  ASSERT_TRUE(m.Apply(Comm(1, 1, "parent", false)).ok());
  ASSERT_TRUE(m.Apply(UserMmap(1, 1, 0x1000, 0x1000, 0, "/bin/parent")).ok());
  ASSERT_TRUE(m.Apply(Fork(1, 1, 2, 2)).ok());
  EXPECT_EQ(DsoNameAt(m, 2, PERF_RECORD_MISC_USER, 0x1000), "/bin/parent");
  EXPECT_THAT(m.FindThread(2), Optional(Field(&Thread::comm, "parent")));
  EXPECT_NE(m.FindThread(2)->maps, m.FindThread(1)->maps);

  // After the fork the two address spaces change independently.
  ASSERT_TRUE(m.Apply(UserMmap(2, 2, 0x1000, 0x1000, 0, "/bin/child")).ok());
  ASSERT_TRUE(m.Apply(UserMmap(1, 1, 0x8000, 0x1000, 0, "/bin/later")).ok());
  EXPECT_EQ(DsoNameAt(m, 1, PERF_RECORD_MISC_USER, 0x1000), "/bin/parent");
  EXPECT_EQ(DsoNameAt(m, 2, PERF_RECORD_MISC_USER, 0x1000), "/bin/child");
  EXPECT_EQ(DsoNameAt(m, 2, PERF_RECORD_MISC_USER, 0x8000), "(none)");
}

TEST(MachineTest, ForkOfAThreadSharesTheProcessMaps) {
  Machine m;
  ASSERT_TRUE(m.Apply(UserMmap(1, 1, 0x1000, 0x1000, 0, "/bin/a")).ok());
  ASSERT_TRUE(m.Apply(Fork(1, 1, 1, 5)).ok());
  EXPECT_EQ(m.FindThread(5)->maps, m.FindThread(1)->maps);
  // A map added through the new thread is seen by the whole process.
  ASSERT_TRUE(m.Apply(UserMmap(1, 5, 0x9000, 0x1000, 0, "/lib/b.so")).ok());
  EXPECT_EQ(DsoNameAt(m, 1, PERF_RECORD_MISC_USER, 0x9000), "/lib/b.so");
  EXPECT_EQ(m.process_count(), 1u);
}

TEST(MachineTest, ForkFromAnUnknownParentCreatesIt) {
  Machine m;
  ASSERT_TRUE(m.Apply(Fork(7, 7, 8, 8)).ok());
  EXPECT_TRUE(m.FindThread(7).has_value());
  EXPECT_TRUE(m.FindThread(8).has_value());
  EXPECT_EQ(m.process_count(), 2u);
}

TEST(MachineTest, ForkIntoItselfIsRejected) {
  Machine m;
  EXPECT_EQ(m.Apply(Fork(1, 1, 1, 1)).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(m.thread_count(), 0u);
}

TEST(MachineTest, ExecKeepsOldMapsUntilTheNewImageCoversThem) {
  // perf's rule: samples taken during the exec still unwind through the old
  // image, which stays mapped until new MMAPs replace it.
  Machine m;
  ASSERT_TRUE(m.Apply(UserMmap(1, 1, 0x1000, 0x2000, 0, "/bin/sh")).ok());
  ASSERT_TRUE(m.Apply(Fork(1, 1, 1, 3)).ok());
  ASSERT_TRUE(m.Apply(Comm(1, 1, "ls", /*exec=*/true)).ok());
  EXPECT_EQ(DsoNameAt(m, 1, PERF_RECORD_MISC_USER, 0x1000), "/bin/sh");
  EXPECT_EQ(m.FindThread(1)->comm, "ls");
  ASSERT_TRUE(m.Apply(UserMmap(1, 1, 0x2000, 0x1000, 0, "/bin/ls")).ok());
  EXPECT_EQ(DsoNameAt(m, 1, PERF_RECORD_MISC_USER, 0x2000), "/bin/ls");
  // Thread 3 is in the same process, so it sees the new image too.
  std::optional<Map> seen_by_thread = m.FindThread(3)->maps->Find(0x2000);
  ASSERT_TRUE(seen_by_thread.has_value());
  EXPECT_EQ(seen_by_thread->dso->name, "/bin/ls");
  EXPECT_EQ(DsoNameAt(m, 1, PERF_RECORD_MISC_USER, 0x1000), "/bin/sh");
}

TEST(MachineTest, CommWithoutExecKeepsTheMaps) {
  Machine m;
  ASSERT_TRUE(m.Apply(UserMmap(1, 1, 0x1000, 0x1000, 0, "/bin/sh")).ok());
  ASSERT_TRUE(m.Apply(Comm(1, 1, "renamed", /*exec=*/false)).ok());
  EXPECT_EQ(DsoNameAt(m, 1, PERF_RECORD_MISC_USER, 0x1000), "/bin/sh");
  EXPECT_EQ(m.FindThread(1)->comm, "renamed");
}

TEST(MachineTest, ExitForgetsThreadsAndTheProcessAfterItsLastThread) {
  Machine m(kHostMachinePid, /*exited_threads_kept=*/0);
  ASSERT_TRUE(m.Apply(UserMmap(1, 1, 0x1000, 0x1000, 0, "/bin/a")).ok());
  ASSERT_TRUE(m.Apply(Fork(1, 1, 1, 2)).ok());
  std::weak_ptr<Maps> maps = m.FindThread(1)->maps;

  ASSERT_TRUE(m.Apply(Exit(1, 1)).ok());  // the leader exits first
  EXPECT_EQ(m.FindThread(1), std::nullopt);
  EXPECT_EQ(DsoNameAt(m, 1, PERF_RECORD_MISC_USER, 0x1000), "/bin/a");

  ASSERT_TRUE(m.Apply(Exit(1, 2)).ok());
  EXPECT_EQ(m.thread_count(), 0u);
  EXPECT_EQ(m.process_count(), 0u);
  EXPECT_EQ(DsoNameAt(m, 1, PERF_RECORD_MISC_USER, 0x1000), "(none)");
  EXPECT_TRUE(maps.expired());            // nothing else held it: memory is released
  EXPECT_TRUE(m.Apply(Exit(1, 2)).ok());  // a repeated EXIT is harmless
}

TEST(MachineTest, ExitedThreadsStayFindableForSamplesTakenWhileExiting) {
  Machine m(kHostMachinePid, /*exited_threads_kept=*/2);
  for (int32_t pid : {1, 2, 3}) {
    ASSERT_TRUE(m.Apply(UserMmap(pid, pid, 0x1000, 0x1000, 0, "/bin/a")).ok());
  }
  ASSERT_TRUE(m.Apply(Exit(1, 1)).ok());
  ASSERT_TRUE(m.Apply(Exit(2, 2)).ok());
  // perf still finds both, and their maps.
  EXPECT_EQ(DsoNameAt(m, 1, PERF_RECORD_MISC_USER, 0x1000), "/bin/a");
  EXPECT_TRUE(m.FindThread(2).has_value());
  // A third exit lets the oldest go.
  ASSERT_TRUE(m.Apply(Exit(3, 3)).ok());
  EXPECT_EQ(DsoNameAt(m, 1, PERF_RECORD_MISC_USER, 0x1000), "(none)");
  EXPECT_EQ(DsoNameAt(m, 2, PERF_RECORD_MISC_USER, 0x1000), "/bin/a");
  EXPECT_EQ(m.thread_count(), 2u);
}

TEST(MachineTest, AReusedTidIsNotForgottenForItsPredecessorsExit) {
  Machine m(kHostMachinePid, /*exited_threads_kept=*/1);
  ASSERT_TRUE(m.Apply(UserMmap(1, 1, 0x1000, 0x1000, 0, "/bin/a")).ok());
  ASSERT_TRUE(m.Apply(Exit(1, 1)).ok());
  ASSERT_TRUE(m.Apply(Fork(1, 1, 5, 5)).ok());  // a placeholder parent for the new pid 7
  ASSERT_TRUE(m.Apply(UserMmap(7, 7, 0x2000, 0x1000, 0, "/bin/b")).ok());
  ASSERT_TRUE(m.Apply(Fork(7, 7, 1, 1)).ok());  // tid 1 again, a live thread
  ASSERT_TRUE(m.Apply(Exit(9, 9)).ok());        // unknown: nothing to keep
  ASSERT_TRUE(m.Apply(Exit(5, 5)).ok());        // pushes tid 1's old exit out
  EXPECT_TRUE(m.FindThread(1).has_value());
  EXPECT_EQ(DsoNameAt(m, 1, PERF_RECORD_MISC_USER, 0x2000), "/bin/b");
}

TEST(MachineTest, HeldMapsOutliveExit) {
  Machine m(kHostMachinePid, /*exited_threads_kept=*/0);
  ASSERT_TRUE(m.Apply(UserMmap(1, 1, 0x1000, 0x1000, 0, "/bin/a")).ok());
  std::shared_ptr<Maps> held = m.FindUserMaps(1);
  ASSERT_TRUE(m.Apply(Exit(1, 1)).ok());
  EXPECT_EQ(m.FindUserMaps(1), nullptr);
  ASSERT_NE(held->Find(0x1000), std::nullopt);
  EXPECT_EQ(held->Find(0x1000)->dso->name, "/bin/a");
}

TEST(MachineTest, ReusedTidWithAnotherPidStartsAFreshThread) {
  Machine m;
  ASSERT_TRUE(m.Apply(UserMmap(1, 5, 0x1000, 0x1000, 0, "/bin/old")).ok());
  ASSERT_TRUE(m.Apply(Comm(1, 5, "old", false)).ok());
  ASSERT_TRUE(m.Apply(Comm(5, 5, "new", false)).ok());  // EXIT of 1/5 was lost
  EXPECT_EQ(m.FindThread(5)->pid, 5);
  EXPECT_EQ(m.FindThread(5)->comm, "new");
  EXPECT_EQ(DsoNameAt(m, 5, PERF_RECORD_MISC_USER, 0x1000), "(none)");
  EXPECT_EQ(m.process_count(), 1u);  // process 1 had no other thread
}

TEST(MachineTest, ForkOverAStaleTidReplacesIt) {
  Machine m;
  ASSERT_TRUE(m.Apply(UserMmap(1, 1, 0x1000, 0x1000, 0, "/bin/a")).ok());
  ASSERT_TRUE(m.Apply(UserMmap(30, 30, 0x1000, 0x1000, 0, "/bin/stale")).ok());
  ASSERT_TRUE(m.Apply(Fork(1, 1, 30, 30)).ok());
  EXPECT_EQ(DsoNameAt(m, 30, PERF_RECORD_MISC_USER, 0x1000), "/bin/a");
  EXPECT_EQ(m.thread_count(), 2u);
  EXPECT_EQ(m.process_count(), 2u);
}

TEST(MachineTest, BadRangesAndIdsAreRejectedWithoutChange) {
  Machine m;
  EXPECT_EQ(m.Apply(UserMmap(1, 1, 0x1000, 0, 0, "/a")).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(m.Apply(UserMmap(1, 1, UINT64_MAX - 0xfff, 0x1000, 0, "/a")).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(m.Apply(UserMmap(1, 1, 0x1000, UINT64_MAX, 0, "/a")).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(m.Apply(UserMmap(-1, 0, 0x1000, 0x1000, 0, "/a")).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(m.Apply(Comm(-1, -1, "x", false)).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(m.Apply(Fork(-1, 0, 2, 2)).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(m.Apply(KernelMmap(kText, 0, kText, "[foo]")).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(m.Apply(Ksymbol(UINT64_MAX, 2, "bpf_prog_x")).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(m.Apply(Ksymbol(kText, 0, "bpf_prog_x")).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(m.thread_count(), 0u);
  EXPECT_EQ(m.kernel_maps().size(), 0u);
  // The last byte of the address space can be mapped.
  EXPECT_TRUE(m.Apply(UserMmap(1, 1, UINT64_MAX - 0xfff, 0xfff, 0, "/a")).ok());
  EXPECT_EQ(DsoNameAt(m, 1, PERF_RECORD_MISC_USER, UINT64_MAX - 1), "/a");
}

TEST(MachineTest, VdsoPgoffIsZeroAndAnonIsIdentity) {
  Machine m;
  ASSERT_TRUE(m.Apply(UserMmap(1, 1, 0x7fff0000, 0x2000, 0x1234, "[vdso]")).ok());
  ASSERT_TRUE(m.Apply(UserMmap(1, 1, 0x10000, 0x1000, 0x10000, "//anon")).ok());
  std::optional<Map> vdso = m.FindMap(1, PERF_RECORD_MISC_USER, 0x7fff0010);
  ASSERT_TRUE(vdso.has_value());
  EXPECT_EQ(vdso->kind, MapKind::kVdso);
  EXPECT_EQ(vdso->pgoff, 0u);
  EXPECT_EQ(vdso->DsoAddress(0x7fff0010), 0x10u);
  std::optional<Map> anon = m.FindMap(1, PERF_RECORD_MISC_USER, 0x10010);
  ASSERT_TRUE(anon.has_value());
  EXPECT_EQ(anon->kind, MapKind::kAnon);
  EXPECT_EQ(anon->DsoAddress(0x10010), 0x10010u);
}

TEST(MachineTest, ExecutableMemoryWithoutAFileIsNamedAfterThePerfMap) {
  // perf's map__new: anonymous or no-file memory mapped executable shows as
  // /tmp/perf-<pid>.map (where JIT runtimes write symbols); data keeps its name.
  Machine m;
  ASSERT_TRUE(m.Apply(UserMmap(7, 8, 0x10000, 0x1000, 0, "//anon")).ok());
  MmapEvent data = UserMmap(7, 7, 0x20000, 0x1000, 0, "//anon");
  data.prot = 3;  // PROT_READ | PROT_WRITE
  ASSERT_TRUE(m.Apply(data).ok());
  ASSERT_TRUE(m.Apply(UserMmap(7, 7, 0x30000, 0x1000, 0, "[heap]")).ok());
  ASSERT_TRUE(m.Apply(UserMmap(7, 7, 0x40000, 0x1000, 0, "/bin/a")).ok());
  EXPECT_EQ(DsoNameAt(m, 7, PERF_RECORD_MISC_USER, 0x10010), "/tmp/perf-7.map");
  EXPECT_EQ(DsoNameAt(m, 7, PERF_RECORD_MISC_USER, 0x20010), "//anon");
  EXPECT_EQ(DsoNameAt(m, 7, PERF_RECORD_MISC_USER, 0x30010), "/tmp/perf-7.map");
  EXPECT_EQ(DsoNameAt(m, 7, PERF_RECORD_MISC_USER, 0x40010), "/bin/a");
  EXPECT_EQ(m.FindMap(7, PERF_RECORD_MISC_USER, 0x10010)->kind, MapKind::kAnon);
}

TEST(MachineTest, SameFileInTwoProcessesIsOneDso) {
  Machine m;
  MmapEvent a = UserMmap(1, 1, 0x1000, 0x1000, 0, "/lib/libc.so.6");
  a.maj = 8;
  a.ino = 77;
  MmapEvent b = a;
  b.pid = b.tid = 2;
  b.start = 0x9000;
  ASSERT_TRUE(m.Apply(a).ok());
  ASSERT_TRUE(m.Apply(b).ok());
  EXPECT_EQ(m.FindMap(1, PERF_RECORD_MISC_USER, 0x1000)->dso,
            m.FindMap(2, PERF_RECORD_MISC_USER, 0x9000)->dso);
  EXPECT_EQ(m.FindMap(1, PERF_RECORD_MISC_USER, 0x1000)->dso->file_id.ino, 77u);
}

TEST(MachineTest, BuildIdIsKeptOnTheDso) {
  Machine m;
  MmapEvent e = UserMmap(1, 1, 0x1000, 0x1000, 0, "/bin/a");
  e.misc |= PERF_RECORD_MISC_MMAP_BUILD_ID;
  e.build_id = base::BuildId::FromBytes(absl::string_view("\xde\xad\xbe\xef", 4));
  ASSERT_TRUE(m.Apply(e).ok());
  EXPECT_EQ(m.FindMap(1, PERF_RECORD_MISC_USER, 0x1000)->dso->build_id.ToHex(), "deadbeef");
}

TEST(MachineTest, KernelMmapMakesTheKernelMapAndRelocationSymbol) {
  Machine m;
  ASSERT_TRUE(m.Apply(KernelMmap(kText, 0x12090c8, kText, "[kernel.kallsyms]_text")).ok());
  std::optional<Map> map = m.FindMap(1234, PERF_RECORD_MISC_KERNEL, kText + 0x100);
  ASSERT_TRUE(map.has_value());
  EXPECT_EQ(map->kind, MapKind::kKernel);
  EXPECT_EQ(map->start, kText);
  EXPECT_EQ(map->end, kText + 0x12090c8);
  EXPECT_EQ(map->pgoff, kText);
  EXPECT_EQ(map->dso->name, "[kernel.kallsyms]");
  EXPECT_TRUE(map->dso->kernel_space);
  EXPECT_EQ(map->DsoAddress(kText + 0x100), kText + 0x100);  // symbols use the address as-is
  EXPECT_THAT(m.kernel_relocation(), Optional(RelocationSymbol{"_text", kText}));
  // Every thread, known or not, shares the kernel space; user space does not see it.
  EXPECT_TRUE(m.FindMap(-1, PERF_RECORD_MISC_KERNEL, kText).has_value());
  EXPECT_EQ(m.FindMap(1234, PERF_RECORD_MISC_USER, kText + 0x100), std::nullopt);
  EXPECT_EQ(m.thread_count(), 0u);
}

TEST(MachineTest, NewKernelMmapReplacesTheOldKernelMap) {
  Machine m;
  ASSERT_TRUE(m.Apply(KernelMmap(kText, 0x1000000, kText, "[kernel.kallsyms]_text")).ok());
  const uint64_t moved = kText + 0x20000000;
  ASSERT_TRUE(m.Apply(KernelMmap(moved, 0x1000000, moved, "[kernel.kallsyms]_stext")).ok());
  EXPECT_EQ(m.FindMap(0, PERF_RECORD_MISC_KERNEL, kText), std::nullopt);
  EXPECT_EQ(m.kernel_maps().size(), 1u);
  EXPECT_THAT(m.kernel_relocation(), Optional(RelocationSymbol{"_stext", moved}));
}

TEST(MachineTest, KernelMmapWithZeroPgoffHasNoRelocation) {
  Machine m;  // kptr_restrict was set at record time
  ASSERT_TRUE(m.Apply(KernelMmap(kText, 0x1000000, 0, "[kernel.kallsyms]_text")).ok());
  EXPECT_EQ(m.kernel_relocation(), std::nullopt);
  EXPECT_TRUE(m.FindMap(0, PERF_RECORD_MISC_KERNEL, kText).has_value());
}

TEST(MachineTest, ZeroSizedKernelMmapAtZeroCoversEverything) {
  Machine m;
  ASSERT_TRUE(m.Apply(KernelMmap(0, 0, 0, "[kernel.kallsyms]_text")).ok());
  EXPECT_EQ(DsoNameAt(m, 0, PERF_RECORD_MISC_KERNEL, 0), "[kernel.kallsyms]");
  EXPECT_EQ(DsoNameAt(m, 0, PERF_RECORD_MISC_KERNEL, UINT64_MAX - 1), "[kernel.kallsyms]");
}

TEST(MachineTest, ModulesAndExtraKernelMaps) {
  Machine m;
  ASSERT_TRUE(m.Apply(KernelMmap(kText, 0x1000000, kText, "[kernel.kallsyms]_text")).ok());
  ASSERT_TRUE(m.Apply(KernelMmap(0xffffffffc0000000, 0x5000, 0,
                                 "/lib/modules/6.1.0/kernel/fs/ext4/ext4.ko"))
                  .ok());
  ASSERT_TRUE(m.Apply(KernelMmap(0xffffffffc0010000, 0x3000, 0, "[kvm]")).ok());
  ASSERT_TRUE(m.Apply(KernelMmap(0xfffffe0000006000, 0x1000, kText + 0x800,
                                 "__entry_SYSCALL_64_trampoline"))
                  .ok());

  std::optional<Map> ext4 = m.FindMap(0, PERF_RECORD_MISC_KERNEL, 0xffffffffc0001000);
  ASSERT_TRUE(ext4.has_value());
  EXPECT_EQ(ext4->kind, MapKind::kModule);
  EXPECT_EQ(ext4->dso->name, "/lib/modules/6.1.0/kernel/fs/ext4/ext4.ko");
  EXPECT_EQ(ext4->DsoAddress(0xffffffffc0001000), 0x1000u);
  std::optional<Map> kvm = m.FindMap(0, PERF_RECORD_MISC_KERNEL, 0xffffffffc0012000);
  ASSERT_TRUE(kvm.has_value());
  EXPECT_EQ(kvm->kind, MapKind::kModule);
  EXPECT_EQ(kvm->dso->name, "[kvm]");
  std::optional<Map> tramp = m.FindMap(0, PERF_RECORD_MISC_KERNEL, 0xfffffe0000006010);
  ASSERT_TRUE(tramp.has_value());
  EXPECT_EQ(tramp->kind, MapKind::kKernelExtra);
  EXPECT_EQ(tramp->dso->name, "[kernel.kallsyms]");
  EXPECT_EQ(tramp->DsoAddress(0xfffffe0000006010), kText + 0x810);
  EXPECT_EQ(m.kernel_maps().size(), 4u);
  // A module does not disturb the kernel relocation symbol.
  EXPECT_THAT(m.kernel_relocation(), Optional(RelocationSymbol{"_text", kText}));
}

TEST(MachineTest, KsymbolRegisterAndUnregister) {
  Machine m;
  const uint64_t bpf = 0xffffffffa0001000;
  ASSERT_TRUE(m.Apply(Ksymbol(bpf, 0x80, "bpf_prog_6deef7357e7b4530_x")).ok());
  std::optional<Map> map = m.FindMap(0, PERF_RECORD_MISC_KERNEL, bpf + 0x10);
  ASSERT_TRUE(map.has_value());
  EXPECT_EQ(map->kind, MapKind::kKsymbol);
  EXPECT_EQ(map->end, bpf + 0x80);
  EXPECT_EQ(map->dso->name, "bpf_prog_6deef7357e7b4530_x");
  EXPECT_EQ(map->DsoAddress(bpf + 0x10), 0x10u);

  ASSERT_TRUE(m.Apply(Ksymbol(bpf, 0x80, "bpf_prog_6deef7357e7b4530_x", true)).ok());
  EXPECT_EQ(m.FindMap(0, PERF_RECORD_MISC_KERNEL, bpf + 0x10), std::nullopt);
  EXPECT_TRUE(m.Apply(Ksymbol(bpf, 0x80, "gone", true)).ok());  // nothing there: no-op
}

TEST(MachineTest, KsymbolInsideAKernelMapAddsNoMapAndUnregisterKeepsIt) {
  Machine m;
  ASSERT_TRUE(m.Apply(KernelMmap(kText, 0x1000000, kText, "[kernel.kallsyms]_text")).ok());
  ASSERT_TRUE(m.Apply(Ksymbol(kText + 0x1000, 0x40, "ool_text")).ok());
  EXPECT_EQ(m.kernel_maps().size(), 1u);
  ASSERT_TRUE(m.Apply(Ksymbol(kText + 0x1000, 0x40, "ool_text", true)).ok());
  EXPECT_EQ(DsoNameAt(m, 0, PERF_RECORD_MISC_KERNEL, kText + 0x1000), "[kernel.kallsyms]");
}

TEST(MachineTest, HypervisorAndUnknownCpumodesFindNothing) {
  Machine m;
  ASSERT_TRUE(m.Apply(KernelMmap(kText, 0x1000000, kText, "[kernel.kallsyms]_text")).ok());
  ASSERT_TRUE(m.Apply(UserMmap(1, 1, 0x1000, 0x1000, 0, "/a")).ok());
  EXPECT_EQ(m.FindMap(1, PERF_RECORD_MISC_HYPERVISOR, kText), std::nullopt);
  EXPECT_EQ(m.FindMap(1, PERF_RECORD_MISC_CPUMODE_UNKNOWN, 0x1000), std::nullopt);
  // A whole misc word is accepted: only the cpumode bits count.
  EXPECT_TRUE(m.FindMap(1, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_EXACT_IP, 0x1000).has_value());
}

TEST(MachineTest, UserMmapOverlapSplitsLikeTheKernel) {
  Machine m;
  ASSERT_TRUE(m.Apply(UserMmap(1, 1, 0x10000, 0x10000, 0x1000, "/lib/a.so")).ok());
  // mprotect of the middle page shows up as a new MMAP of that page.
  MmapEvent middle = UserMmap(1, 1, 0x14000, 0x1000, 0x5000, "/lib/a.so");
  middle.prot = 1;
  ASSERT_TRUE(m.Apply(middle).ok());
  std::shared_ptr<Maps> maps = m.FindUserMaps(1);
  std::vector<Map> all = maps->Snapshot();
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].end, 0x14000u);
  EXPECT_EQ(all[0].pgoff, 0x1000u);
  EXPECT_EQ(all[1].prot, 1u);
  EXPECT_EQ(all[2].start, 0x15000u);
  EXPECT_EQ(all[2].pgoff, 0x6000u);
  EXPECT_EQ(all[0].dso, all[2].dso);
  EXPECT_EQ(all[2].start - all[2].pgoff, all[0].start - all[0].pgoff);
}

}  // namespace
}  // namespace perftk::machine

namespace perftk::machine {
namespace {

TEST(MachineKernelTextTest, AddressesPastTheAnnouncedTextBelongToIt) {
  // perf grows the kernel map to its last kallsyms symbol (.init.text lies
  // past the MMAP's length); a module above still has its own map.
  Machine m;
  MmapEvent text;
  text.misc = PERF_RECORD_MISC_KERNEL;
  text.pid = -1;
  text.start = 0xffffffff81000000;
  text.len = 0x1000000;
  text.pgoff = 0xffffffff81000000;
  text.filename = "[kernel.kallsyms]_text";
  ASSERT_TRUE(m.Apply(text).ok());
  MmapEvent module = text;
  module.start = 0xffffffffc0000000;
  module.len = 0x4000;
  module.pgoff = 0;
  module.filename = "/lib/modules/6.1/kernel/fs/ext4.ko";
  ASSERT_TRUE(m.Apply(module).ok());

  std::optional<Map> init = m.FindMap(-1, PERF_RECORD_MISC_KERNEL, 0xffffffff83123456);
  ASSERT_TRUE(init.has_value());
  EXPECT_EQ(init->kind, MapKind::kKernel);
  EXPECT_EQ(init->start, 0xffffffff81000000u);
  std::optional<Map> in_module = m.FindMap(-1, PERF_RECORD_MISC_KERNEL, 0xffffffffc0001000);
  ASSERT_TRUE(in_module.has_value());
  EXPECT_EQ(in_module->kind, MapKind::kModule);
  // Past the module: the module does not grow.
  EXPECT_FALSE(m.FindMap(-1, PERF_RECORD_MISC_KERNEL, 0xffffffffc0010000).has_value());
  // Below the kernel text: nothing.
  EXPECT_FALSE(m.FindMap(-1, PERF_RECORD_MISC_KERNEL, 0xffffffff80000000).has_value());
}

}  // namespace
}  // namespace perftk::machine
