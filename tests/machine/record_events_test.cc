#include "machine/record_events.h"

#include <sys/mman.h>

#include <cstring>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace perftk::machine {
namespace {

using ::testing::HasSubstr;

// A record's bytes, field by field in this machine's byte order, as the
// kernel writes them (linux/perf_event.h).
class RecordBytes {
 public:
  RecordBytes(uint32_t type, uint16_t misc) { Put(type), Put(misc), Put(uint16_t{0}); }
  template <typename T>
  RecordBytes& Put(T value) {
    const size_t at = bytes_.size();
    bytes_.resize(at + sizeof(T));
    std::memcpy(bytes_.data() + at, &value, sizeof(T));
    return *this;
  }
  // A NUL-terminated string padded to 8 bytes, as the kernel pads names.
  RecordBytes& String(const std::string& text) {
    for (char c : text) Put(c);
    do Put('\0');
    while (bytes_.size() % 8 != 0);
    return *this;
  }
  const std::vector<std::byte>& Done() {
    const uint16_t size = static_cast<uint16_t>(bytes_.size());
    std::memcpy(bytes_.data() + 6, &size, sizeof(size));
    return bytes_;
  }

 private:
  std::vector<std::byte> bytes_;
};

constexpr uint64_t kOffset = 0x1234;

perf::Record At(const std::vector<std::byte>& bytes) { return perf::Record(bytes, kOffset); }

std::vector<std::byte> Mmap(uint16_t misc, int32_t pid, uint64_t start, const std::string& file) {
  return RecordBytes(PERF_RECORD_MMAP, misc)
      .Put(pid)
      .Put(pid)
      .Put(start)
      .Put(uint64_t{0x2000})
      .Put(uint64_t{0x1000})
      .String(file)
      .Done();
}

std::vector<std::byte> Mmap2(int32_t pid, int32_t tid, uint64_t start, const std::string& file) {
  return RecordBytes(PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER)
      .Put(pid)
      .Put(tid)
      .Put(start)
      .Put(uint64_t{0x3000})
      .Put(uint64_t{0x0})
      .Put(uint32_t{8})     // maj
      .Put(uint32_t{1})     // min
      .Put(uint64_t{4242})  // ino
      .Put(uint64_t{7})     // ino_generation
      .Put(uint32_t{PROT_READ | PROT_EXEC})
      .Put(uint32_t{MAP_PRIVATE})
      .String(file)
      .Done();
}

std::vector<std::byte> Task(uint32_t type, int32_t pid, int32_t ppid, int32_t tid, int32_t ptid) {
  return RecordBytes(type, 0).Put(pid).Put(ppid).Put(tid).Put(ptid).Put(uint64_t{99}).Done();
}

std::vector<std::byte> Comm(uint16_t misc, int32_t pid, int32_t tid, const std::string& comm) {
  return RecordBytes(PERF_RECORD_COMM, misc).Put(pid).Put(tid).String(comm).Done();
}

TEST(MmapEventOf, AnMmapWithoutProtIsExecutableUnlessMarkedData) {
  const std::vector<std::byte> code = Mmap(PERF_RECORD_MISC_USER, 7, 0x400000, "/bin/app");
  absl::StatusOr<MmapEvent> event = MmapEventOf(At(code));
  ASSERT_TRUE(event.ok()) << event.status();
  EXPECT_EQ(event->pid, 7);
  EXPECT_EQ(event->tid, 7);
  EXPECT_EQ(event->start, 0x400000u);
  EXPECT_EQ(event->len, 0x2000u);
  EXPECT_EQ(event->pgoff, 0x1000u);
  EXPECT_EQ(event->filename, "/bin/app");
  EXPECT_EQ(event->prot, uint32_t{PROT_READ | PROT_EXEC});

  const std::vector<std::byte> data =
      Mmap(PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_DATA, 7, 0x600000, "/bin/app");
  event = MmapEventOf(At(data));
  ASSERT_TRUE(event.ok()) << event.status();
  EXPECT_EQ(event->prot, uint32_t{PROT_READ});
}

TEST(MmapEventOf, Mmap2KeepsInodeOrBuildId) {
  const std::vector<std::byte> inode = Mmap2(7, 8, 0x7f0000, "/lib/libc.so.6");
  absl::StatusOr<MmapEvent> event = MmapEventOf(At(inode));
  ASSERT_TRUE(event.ok()) << event.status();
  EXPECT_EQ(event->tid, 8);
  EXPECT_EQ(event->maj, 8u);
  EXPECT_EQ(event->min, 1u);
  EXPECT_EQ(event->ino, 4242u);
  EXPECT_EQ(event->ino_generation, 7u);
  EXPECT_EQ(event->prot, uint32_t{PROT_READ | PROT_EXEC});
  EXPECT_EQ(event->flags, uint32_t{MAP_PRIVATE});
  EXPECT_TRUE(event->build_id.empty());

  // With PERF_RECORD_MISC_MMAP_BUILD_ID the inode fields hold the id: a
  // size byte, three reserved, 20 bytes.
  RecordBytes with_id(PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID);
  with_id.Put(int32_t{7}).Put(int32_t{7}).Put(uint64_t{0x7f0000}).Put(uint64_t{0x3000});
  with_id.Put(uint64_t{0}).Put(uint8_t{4}).Put(uint8_t{0}).Put(uint16_t{0});
  for (uint8_t b : {0xde, 0xad, 0xbe, 0xef}) with_id.Put(b);
  for (int i = 0; i < 16; ++i) with_id.Put(uint8_t{0});
  with_id.Put(uint32_t{PROT_READ}).Put(uint32_t{0}).String("/lib/x.so");
  const std::vector<std::byte> bytes = with_id.Done();
  event = MmapEventOf(At(bytes));
  ASSERT_TRUE(event.ok()) << event.status();
  EXPECT_EQ(event->build_id.ToHex(), "deadbeef");
  EXPECT_EQ(event->maj, 0u);
  EXPECT_EQ(event->ino, 0u);
  EXPECT_EQ(event->filename, "/lib/x.so");
}

TEST(CommEventOf, KeepsTheExecMark) {
  const std::vector<std::byte> bytes = Comm(PERF_RECORD_MISC_COMM_EXEC, 7, 9, "worker");
  absl::StatusOr<CommEvent> event = CommEventOf(At(bytes));
  ASSERT_TRUE(event.ok()) << event.status();
  EXPECT_EQ(event->pid, 7);
  EXPECT_EQ(event->tid, 9);
  EXPECT_EQ(event->comm, "worker");
  EXPECT_TRUE(event->exec());
}

TEST(TaskEventOf, ReadsForkAndExitAlike) {
  for (uint32_t type : {uint32_t{PERF_RECORD_FORK}, uint32_t{PERF_RECORD_EXIT}}) {
    const std::vector<std::byte> bytes = Task(type, 7, 1, 9, 7);
    absl::StatusOr<TaskEvent> event = TaskEventOf(At(bytes));
    ASSERT_TRUE(event.ok()) << event.status();
    EXPECT_EQ(event->pid, 7);
    EXPECT_EQ(event->ppid, 1);
    EXPECT_EQ(event->tid, 9);
    EXPECT_EQ(event->ptid, 7);
  }
}

TEST(KsymbolEventOf, KeepsTheUnregisterFlag) {
  const std::vector<std::byte> bytes = RecordBytes(PERF_RECORD_KSYMBOL, PERF_RECORD_MISC_KERNEL)
                                           .Put(uint64_t{0xffffffffc0001000})
                                           .Put(uint32_t{0x80})
                                           .Put(uint16_t{PERF_RECORD_KSYMBOL_TYPE_BPF})
                                           .Put(uint16_t{PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER})
                                           .String("bpf_prog_1234_f")
                                           .Done();
  absl::StatusOr<KsymbolEvent> event = KsymbolEventOf(At(bytes));
  ASSERT_TRUE(event.ok()) << event.status();
  EXPECT_EQ(event->addr, 0xffffffffc0001000u);
  EXPECT_EQ(event->len, 0x80u);
  EXPECT_EQ(event->ksym_type, PERF_RECORD_KSYMBOL_TYPE_BPF);
  EXPECT_TRUE(event->unregister());
  EXPECT_EQ(event->name, "bpf_prog_1234_f");
}

TEST(ChangesMachines, TheSixRecordTypesOfTheModel) {
  for (uint32_t type = 0; type < 128; ++type) {  // every kernel and user type and beyond
    const bool expected = type == PERF_RECORD_MMAP || type == PERF_RECORD_MMAP2 ||
                          type == PERF_RECORD_COMM || type == PERF_RECORD_FORK ||
                          type == PERF_RECORD_EXIT || type == PERF_RECORD_KSYMBOL;
    EXPECT_EQ(ChangesMachines(type), expected) << type;
  }
}

TEST(ApplyRecord, BuildsTheModelAProgramsRecordsDescribe) {
  Machines machines;
  for (const std::vector<std::byte>& bytes :
       {Comm(PERF_RECORD_MISC_COMM_EXEC, 7, 7, "app"), Mmap2(7, 7, 0x7f0000, "/lib/libc.so.6"),
        Task(PERF_RECORD_FORK, 7, 7, 9, 7), Comm(0, 7, 9, "worker")}) {
    ASSERT_TRUE(ApplyRecord(machines, At(bytes)).ok());
  }
  const std::optional<Thread> worker = machines.host().FindThread(9);
  ASSERT_TRUE(worker.has_value());
  EXPECT_EQ(worker->pid, 7);
  EXPECT_EQ(worker->comm, "worker");
  // The thread shares its process's maps.
  const std::optional<Map> map = machines.FindMap(0, 7, PERF_RECORD_MISC_USER, 0x7f1000);
  ASSERT_TRUE(map.has_value());
  EXPECT_EQ(map->start, 0x7f0000u);
  EXPECT_EQ(map->end, 0x7f3000u);

  ASSERT_TRUE(ApplyRecord(machines, At(Task(PERF_RECORD_EXIT, 7, 7, 9, 9))).ok());
}

TEST(ApplyRecord, LeavesOtherRecordsAlone) {
  Machines machines;
  const std::vector<std::byte> sample =
      RecordBytes(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER).Put(uint64_t{0x400000}).Done();
  EXPECT_TRUE(ApplyRecord(machines, At(sample)).ok());
  EXPECT_EQ(machines.host().thread_count(), 0u);
}

TEST(ApplyRecord, ErrorsNameTheRecordsOffsetAndType) {
  Machines machines;
  // An MMAP2 cut off before its filename.
  std::vector<std::byte> bytes = RecordBytes(PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER)
                                     .Put(int32_t{7})
                                     .Put(int32_t{7})
                                     .Put(uint64_t{0x7f0000})
                                     .Done();
  const absl::Status status = ApplyRecord(machines, At(bytes));
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("offset 0x1234: MMAP2 record"));
}

}  // namespace
}  // namespace perftk::machine
