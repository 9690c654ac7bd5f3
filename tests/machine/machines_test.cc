#include "machine/machines.h"

#include <cstdint>
#include <optional>
#include <string>

#include "gtest/gtest.h"
#include "machine/events.h"
#include "print_map.h"

namespace perftk::machine {
namespace {

constexpr uint64_t kText = 0xffffffff81000000;

MmapEvent Mmap(uint16_t cpumode, int32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
               std::string filename, int32_t machine_pid = 0) {
  MmapEvent e;
  e.misc = cpumode;
  e.pid = pid;
  e.tid = pid;
  e.start = start;
  e.len = len;
  e.pgoff = pgoff;
  e.filename = std::move(filename);
  e.machine_pid = machine_pid;
  return e;
}

std::string DsoNameAt(const Machines& m, int32_t guest_pid, int32_t pid, uint16_t cpumode,
                      uint64_t addr) {
  std::optional<Map> map = m.FindMap(guest_pid, pid, cpumode, addr);
  return map.has_value() ? map->dso->name : "(none)";
}

TEST(MachinesTest, HostAndGuestKernelsAreSeparate) {
  Machines m;
  ASSERT_TRUE(
      m.Apply(Mmap(PERF_RECORD_MISC_KERNEL, -1, kText, 0x1000000, kText, "[kernel.kallsyms]_text"))
          .ok());
  ASSERT_TRUE(m.Apply(Mmap(PERF_RECORD_MISC_GUEST_KERNEL, 0, kText + 0x200000, 0x1000000,
                           kText + 0x200000, "[guest.kernel.kallsyms.4242]_text",
                           /*machine_pid=*/4242))
                  .ok());
  EXPECT_EQ(m.guest_count(), 1u);

  std::optional<Map> host = m.FindMap(0, 1, PERF_RECORD_MISC_KERNEL, kText + 0x100);
  ASSERT_TRUE(host.has_value());
  EXPECT_EQ(host->start, kText);
  EXPECT_EQ(host->dso->name, "[kernel.kallsyms]");

  std::optional<Map> guest = m.FindMap(4242, 1, PERF_RECORD_MISC_GUEST_KERNEL, kText + 0x300000);
  ASSERT_TRUE(guest.has_value());
  EXPECT_EQ(guest->start, kText + 0x200000);
  EXPECT_EQ(guest->kind, MapKind::kKernel);
  EXPECT_EQ(guest->dso->name, "[guest.kernel.kallsyms.4242]");
  EXPECT_EQ(guest->dso, m.Find(PERF_RECORD_MISC_GUEST_KERNEL, 4242)
                            ->FindMap(0, PERF_RECORD_MISC_GUEST_KERNEL, kText + 0x300000)
                            ->dso);
  EXPECT_EQ(m.Find(PERF_RECORD_MISC_GUEST_KERNEL, 4242)->kernel_relocation()->address,
            kText + 0x200000);

  // The guest's kernel starts 2 MiB higher: the host address below it is
  // host-only, and the guest cpumode never answers from the host.
  EXPECT_EQ(DsoNameAt(m, 4242, 1, PERF_RECORD_MISC_GUEST_KERNEL, kText + 0x100), "(none)");
  EXPECT_EQ(DsoNameAt(m, 0, 1, PERF_RECORD_MISC_KERNEL, kText + 0x100), "[kernel.kallsyms]");
}

TEST(MachinesTest, GuestUserSpaceIsKeyedByMachinePidThenEventPid) {
  Machines m;
  // A guest process 10 inside VM 500, and host process 10.
  ASSERT_TRUE(m.Apply(Mmap(PERF_RECORD_MISC_GUEST_USER, 10, 0x1000, 0x1000, 0, "/guest/bin",
                           /*machine_pid=*/500))
                  .ok());
  ASSERT_TRUE(m.Apply(Mmap(PERF_RECORD_MISC_USER, 10, 0x1000, 0x1000, 0, "/host/bin")).ok());
  EXPECT_EQ(DsoNameAt(m, 500, 10, PERF_RECORD_MISC_GUEST_USER, 0x1000), "/guest/bin");
  EXPECT_EQ(DsoNameAt(m, 0, 10, PERF_RECORD_MISC_USER, 0x1000), "/host/bin");
  // Host lookups ignore guest_pid.
  EXPECT_EQ(DsoNameAt(m, 500, 10, PERF_RECORD_MISC_USER, 0x1000), "/host/bin");
  EXPECT_EQ(DsoNameAt(m, 501, 10, PERF_RECORD_MISC_GUEST_USER, 0x1000), "(none)");

  // Without machine_pid, perf keys the guest by the event's pid.
  ASSERT_TRUE(m.Apply(Mmap(PERF_RECORD_MISC_GUEST_USER, 77, 0x2000, 0x1000, 0, "/vm77")).ok());
  EXPECT_EQ(DsoNameAt(m, 77, 77, PERF_RECORD_MISC_GUEST_USER, 0x2000), "/vm77");
  EXPECT_EQ(m.guest_count(), 2u);
}

TEST(MachinesTest, LookupsNeverCreateGuests) {
  Machines m;
  EXPECT_EQ(m.Find(PERF_RECORD_MISC_GUEST_KERNEL, 9), nullptr);
  EXPECT_EQ(m.FindMap(9, 1, PERF_RECORD_MISC_GUEST_USER, 0x1000), std::nullopt);
  EXPECT_EQ(m.guest_count(), 0u);
  EXPECT_EQ(m.Find(PERF_RECORD_MISC_USER, 9), &m.host());
  Machine& guest = m.FindOrAdd(PERF_RECORD_MISC_GUEST_USER, 9);
  EXPECT_EQ(guest.pid(), 9);
  EXPECT_FALSE(guest.is_host());
  EXPECT_EQ(&m.FindOrAdd(PERF_RECORD_MISC_GUEST_KERNEL, 9), &guest);
  EXPECT_EQ(m.FindOrAdd(PERF_RECORD_MISC_GUEST_KERNEL, 0).kernel_name(), "[guest.kernel.kallsyms]");
  EXPECT_TRUE(m.host().is_host());
  EXPECT_EQ(m.host().kernel_name(), "[kernel.kallsyms]");
}

TEST(MachinesTest, GuestAcceptsAHostStyleKernelMmapName) {
  // An MMAP recorded inside the guest and injected into the host file.
  Machines m;
  ASSERT_TRUE(m.Apply(Mmap(PERF_RECORD_MISC_GUEST_KERNEL, -1, kText, 0x1000000, kText,
                           "[kernel.kallsyms]_text", 300))
                  .ok());
  std::optional<Map> map = m.FindMap(300, 0, PERF_RECORD_MISC_GUEST_KERNEL, kText);
  ASSERT_TRUE(map.has_value());
  EXPECT_EQ(map->kind, MapKind::kKernel);
  EXPECT_EQ(map->dso->name, "[guest.kernel.kallsyms.300]");
  // On the host, a guest-style name is not the host kernel: it is a module-like map.
  ASSERT_TRUE(
      m.Apply(Mmap(PERF_RECORD_MISC_KERNEL, -1, kText, 0x1000, 0, "[guest.kernel.kallsyms]_text"))
          .ok());
  EXPECT_EQ(m.host().FindMap(0, PERF_RECORD_MISC_KERNEL, kText)->kind, MapKind::kModule);
}

TEST(MachinesTest, TaskEventsFollowTheirCpumode) {
  Machines m(/*exited_threads_kept=*/0);
  ForkEvent fork;
  fork.misc = PERF_RECORD_MISC_GUEST_USER;
  fork.machine_pid = 600;
  fork.ppid = fork.ptid = 1;
  fork.pid = fork.tid = 2;
  ASSERT_TRUE(m.Apply(fork).ok());
  CommEvent comm;
  comm.pid = comm.tid = 2;
  comm.comm = "host-side";
  ASSERT_TRUE(m.Apply(comm).ok());
  EXPECT_TRUE(m.Find(PERF_RECORD_MISC_GUEST_USER, 600)->FindThread(2).has_value());
  EXPECT_EQ(m.Find(PERF_RECORD_MISC_GUEST_USER, 600)->FindThread(2)->comm, "");
  EXPECT_EQ(m.host().FindThread(2)->comm, "host-side");
  ExitEvent exit;
  exit.misc = PERF_RECORD_MISC_GUEST_USER;
  exit.machine_pid = 600;
  exit.pid = exit.tid = 2;
  ASSERT_TRUE(m.Apply(exit).ok());
  EXPECT_FALSE(m.Find(PERF_RECORD_MISC_GUEST_USER, 600)->FindThread(2).has_value());
  EXPECT_TRUE(m.host().FindThread(2).has_value());
}

TEST(MachinesTest, KsymbolGoesToTheGuestNamedByMachinePid) {
  Machines m;
  KsymbolEvent ksym;
  ksym.misc = PERF_RECORD_MISC_GUEST_KERNEL;
  ksym.machine_pid = 700;
  ksym.addr = 0xffffffffa0000000;
  ksym.len = 0x100;
  ksym.name = "bpf_prog_guest";
  ASSERT_TRUE(m.Apply(ksym).ok());
  EXPECT_EQ(DsoNameAt(m, 700, 0, PERF_RECORD_MISC_GUEST_KERNEL, ksym.addr), "bpf_prog_guest");
  EXPECT_EQ(DsoNameAt(m, 0, 0, PERF_RECORD_MISC_KERNEL, ksym.addr), "(none)");
}

}  // namespace
}  // namespace perftk::machine
