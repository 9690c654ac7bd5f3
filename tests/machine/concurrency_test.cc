// Lookups from several threads while one thread mutates. Every assertion is
// about what any single lookup must see, whatever the interleaving, so the
// test is deterministic in what it checks; its length is a fixed number of
// mutations. Run it under ThreadSanitizer (-DPERFTK_TSAN=ON) too.
#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "machine/dso.h"
#include "machine/machine.h"
#include "machine/maps.h"
#include "print_map.h"

namespace perftk::machine {
namespace {

constexpr uint64_t kPage = 0x1000;
constexpr uint64_t kStableStart = 0x1000;
constexpr uint64_t kStableEnd = 0x3000;
constexpr uint64_t kRegionStart = 0x100000;
constexpr uint64_t kRegionPages = 256;
constexpr uint64_t kRegionEnd = kRegionStart + kRegionPages * kPage;
constexpr uint64_t kLibPgoffAtRegionStart = 0x10000;
constexpr int kMutations = 10000;
constexpr int kReaders = 4;
constexpr int kMinLookupsPerReader = 1000;

// Collects what readers saw wrong; readers never call gtest themselves.
class Violations {
 public:
  void Add(std::string what) {
    std::lock_guard lock(mu_);
    if (count_++ < 10) first_.push_back(std::move(what));
  }
  int count() {
    std::lock_guard lock(mu_);
    return count_;
  }
  std::string Summary() {
    std::lock_guard lock(mu_);
    std::string out;
    for (const std::string& s : first_) absl::StrAppend(&out, s, "\n");
    return out;
  }

 private:
  std::mutex mu_;
  int count_ = 0;  // guarded by mu_
  std::vector<std::string> first_;
};

// Lets the writer start only once every reader is running, so mutations and
// lookups always overlap.
class StartLine {
 public:
  void ReaderStarted() { started_.fetch_add(1); }
  void WaitForReaders(int n) const {
    while (started_.load() < n) std::this_thread::yield();
  }

 private:
  std::atomic<int> started_{0};
};

// Spins a few microseconds inside a mutation, while the list has a hole, so a
// reader that ignored the lock would be likely to see it.
void HoldTheHoleOpen() {
  std::atomic<int> spins{0};
  while (spins.fetch_add(1, std::memory_order_relaxed) < 2000) {
  }
}

std::string Describe(const Map& map) {
  return absl::StrFormat("[%#x, %#x) pgoff %#x kind %s", map.start, map.end, map.pgoff,
                         MapKindName(map.kind));
}

class MapsConcurrencyTest : public ::testing::Test {
 protected:
  MapsConcurrencyTest()
      : stable_dso_(dsos_.Intern("/stable", base::BuildId(), FileId{}, false)),
        lib_dso_(dsos_.Intern("/lib/churn.so", base::BuildId(), FileId{}, false)),
        anon_dso_(dsos_.Intern("//anon", base::BuildId(), FileId{}, false)) {}

  Map StableMap() const {
    return Map{kStableStart, kStableEnd, 0, stable_dso_, 5, 0, MapKind::kFile};
  }
  // Every piece of the library keeps start - pgoff constant, as splits must.
  Map LibPiece(uint64_t start, uint64_t end) const {
    return Map{start, end,           start - kRegionStart + kLibPgoffAtRegionStart, lib_dso_, 5,
               0,     MapKind::kFile};
  }
  Map AnonPiece(uint64_t start, uint64_t end) const {
    return Map{start, end, start, anon_dso_, 3, 0, MapKind::kAnon};
  }

  // What any lookup of `addr` may return, at any moment.
  std::optional<std::string> CheckLookup(uint64_t addr, const std::optional<Map>& map) const {
    if (addr >= kStableStart && addr < kStableEnd) {
      if (map != StableMap()) return absl::StrFormat("stable %#x: wrong or missing map", addr);
      return std::nullopt;
    }
    if (addr < kRegionStart || addr >= kRegionEnd) return std::nullopt;
    if (!map.has_value()) return absl::StrFormat("hole at %#x", addr);
    if (!map->Contains(addr) || map->start < kRegionStart || map->end > kRegionEnd ||
        map->start % kPage != 0 || map->end % kPage != 0) {
      return absl::StrFormat("%#x: bad bounds %s", addr, Describe(*map));
    }
    if (map->dso == lib_dso_) {
      if (map->kind != MapKind::kFile ||
          map->start - map->pgoff != kRegionStart - kLibPgoffAtRegionStart) {
        return absl::StrFormat("%#x: torn library piece %s", addr, Describe(*map));
      }
    } else if (map->dso == anon_dso_) {
      if (map->kind != MapKind::kAnon || map->pgoff != map->start) {
        return absl::StrFormat("%#x: torn anon piece %s", addr, Describe(*map));
      }
    } else {
      return absl::StrFormat("%#x: unknown dso in %s", addr, Describe(*map));
    }
    return std::nullopt;
  }

  std::optional<std::string> CheckSnapshot(const std::vector<Map>& maps) const {
    uint64_t covered_to = kRegionStart;
    bool stable_seen = false;
    for (size_t i = 0; i < maps.size(); ++i) {
      if (maps[i].start >= maps[i].end) return "empty map in snapshot";
      if (i > 0 && maps[i - 1].end > maps[i].start) return "unsorted or overlapping snapshot";
      if (maps[i] == StableMap()) stable_seen = true;
      if (maps[i].start >= kRegionStart) {
        if (maps[i].start != covered_to) return "gap in the region";
        covered_to = maps[i].end;
      }
    }
    if (!stable_seen) return "stable map missing from snapshot";
    if (covered_to != kRegionEnd) return "region not fully covered";
    return std::nullopt;
  }

  void Fill(Maps& maps) const {
    maps.Mutate([&](Maps::Editor& e) {
      EXPECT_TRUE(e.Insert(StableMap()).ok());
      EXPECT_TRUE(e.Insert(LibPiece(kRegionStart, kRegionEnd)).ok());
    });
  }

  // One mutation that may open holes while it runs but always leaves the
  // region fully covered and the stable map in place.
  void MutateOnce(Maps& maps, std::mt19937_64& rng) const {
    const uint64_t first = rng() % kRegionPages;
    const uint64_t pages = 1 + rng() % (kRegionPages - first);
    const uint64_t start = kRegionStart + first * kPage;
    const uint64_t end = start + pages * kPage;
    switch (rng() % 4) {
      case 0:
        maps.Mutate([&](Maps::Editor& e) { return e.Insert(LibPiece(start, end)); }).IgnoreError();
        break;
      case 1:
        maps.Mutate([&](Maps::Editor& e) { return e.Insert(AnonPiece(start, end)); }).IgnoreError();
        break;
      case 2:
        maps.Mutate([&](Maps::Editor& e) {
              const Map removed = *e.Find(start);
              e.Remove(start);
              HoldTheHoleOpen();
              return e.Insert(LibPiece(removed.start, removed.end));
            })
            .IgnoreError();
        break;
      default:
        maps.Mutate([&](Maps::Editor& e) {
              e.Clear();
              HoldTheHoleOpen();
              e.Insert(LibPiece(kRegionStart, kRegionEnd)).IgnoreError();
              return e.Insert(StableMap());
            })
            .IgnoreError();
        break;
    }
  }

  DsoTable dsos_;
  const Dso* stable_dso_;
  const Dso* lib_dso_;
  const Dso* anon_dso_;
};

TEST_F(MapsConcurrencyTest, ReadersNeverSeeAHalfDoneMutation) {
  Maps maps;
  Fill(maps);
  Violations violations;
  std::atomic<bool> writer_done{false};
  std::atomic<int64_t> lookups{0};

  StartLine start_line;
  auto reader = [&](int index) {
    start_line.ReaderStarted();
    std::mt19937_64 rng(1000 + index);
    MapsCache cache;
    for (int n = 0; n < kMinLookupsPerReader || !writer_done.load(); ++n) {
      if (index == 0 && n % 16 == 0) {
        if (auto bad = CheckSnapshot(maps.Snapshot())) violations.Add(*bad);
        continue;
      }
      const uint64_t addr = n % 3 == 0 ? kStableStart + rng() % (kStableEnd - kStableStart)
                                       : kRegionStart + rng() % (kRegionEnd - kRegionStart);
      std::optional<Map> map = index % 2 == 0 ? maps.Find(addr) : maps.Find(addr, cache);
      if (auto bad = CheckLookup(addr, map)) violations.Add(*bad);
      lookups.fetch_add(1, std::memory_order_relaxed);
    }
  };
  std::vector<std::thread> readers;
  for (int i = 0; i < kReaders; ++i) readers.emplace_back(reader, i);

  start_line.WaitForReaders(kReaders);
  std::mt19937_64 rng(42);
  for (int i = 0; i < kMutations; ++i) MutateOnce(maps, rng);
  writer_done = true;
  for (std::thread& t : readers) t.join();

  EXPECT_EQ(violations.count(), 0) << violations.Summary();
  EXPECT_GE(lookups.load(), int64_t{kMinLookupsPerReader});
  EXPECT_FALSE(CheckSnapshot(maps.Snapshot()).has_value());
}

TEST_F(MapsConcurrencyTest, TheCheckerCatchesATornList) {
  // The invariants the readers check do fail on the states a mutation passes
  // through, so the test above would notice a reader seeing one.
  std::vector<Map> hole = {StableMap(), LibPiece(kRegionStart, kRegionStart + kPage),
                           LibPiece(kRegionStart + 2 * kPage, kRegionEnd)};
  EXPECT_TRUE(CheckSnapshot(hole).has_value());
  EXPECT_TRUE(CheckSnapshot({LibPiece(kRegionStart, kRegionEnd)}).has_value());
  EXPECT_TRUE(CheckLookup(kRegionStart + kPage, std::nullopt).has_value());
  EXPECT_TRUE(CheckLookup(kStableStart, std::nullopt).has_value());
  Map torn = LibPiece(kRegionStart + kPage, kRegionEnd);
  torn.pgoff += kPage;  // a tail whose pgoff was not advanced with its start, or twice
  EXPECT_TRUE(CheckLookup(kRegionStart + kPage, torn).has_value());
}

// The same at the Machine level: processes come and go while readers look up
// a long-lived process and the kernel.
TEST(MachineConcurrencyTest, LookupsStayCorrectWhileProcessesComeAndGo) {
  constexpr uint64_t kText = 0xffffffff81000000;
  constexpr int32_t kLongLived = 100;
  constexpr int kRounds = 1000;
  Machine machine(kHostMachinePid, /*exited_threads_kept=*/0);
  MmapEvent kernel;
  kernel.misc = PERF_RECORD_MISC_KERNEL;
  kernel.pid = -1;
  kernel.start = kText;
  kernel.len = 0x1000000;
  kernel.pgoff = kText;
  kernel.filename = "[kernel.kallsyms]_text";
  ASSERT_TRUE(machine.Apply(kernel).ok());
  MmapEvent stable;
  stable.misc = PERF_RECORD_MISC_USER;
  stable.pid = stable.tid = kLongLived;
  stable.start = 0x400000;
  stable.len = 0x10000;
  stable.pgoff = 0x1000;
  stable.filename = "/bin/long-lived";
  ASSERT_TRUE(machine.Apply(stable).ok());

  Violations violations;
  std::atomic<bool> writer_done{false};
  StartLine start_line;
  auto reader = [&](int index) {
    start_line.ReaderStarted();
    std::mt19937_64 rng(index);
    for (int n = 0; n < kMinLookupsPerReader || !writer_done.load(); ++n) {
      std::optional<Map> user =
          machine.FindMap(kLongLived, PERF_RECORD_MISC_USER, 0x400000 + n % 0x10000);
      if (!user.has_value() || user->dso->name != "/bin/long-lived" || user->pgoff != 0x1000) {
        violations.Add("long-lived process map lost");
      }
      std::optional<Map> kmap = machine.FindMap(static_cast<int32_t>(rng() % 5000),
                                                PERF_RECORD_MISC_KERNEL, kText + n % 0x1000000);
      if (!kmap.has_value() || kmap->kind != MapKind::kKernel) violations.Add("kernel map lost");
      const int32_t churn_pid = 1000 + static_cast<int32_t>(rng() % kRounds);
      std::optional<Map> churn = machine.FindMap(churn_pid, PERF_RECORD_MISC_USER, 0x7000);
      if (churn.has_value() && !churn->Contains(0x7000)) violations.Add("churn map torn");
      std::optional<Thread> thread = machine.FindThread(kLongLived);
      if (!thread.has_value() || thread->pid != kLongLived)
        violations.Add("long-lived thread lost");
    }
  };
  std::vector<std::thread> readers;
  for (int i = 0; i < kReaders; ++i) readers.emplace_back(reader, i);

  start_line.WaitForReaders(kReaders);
  for (int i = 0; i < kRounds; ++i) {
    const int32_t pid = 1000 + i;
    ForkEvent fork;
    fork.ppid = fork.ptid = kLongLived;
    fork.pid = fork.tid = pid;
    EXPECT_TRUE(machine.Apply(fork).ok());
    MmapEvent mmap;
    mmap.misc = PERF_RECORD_MISC_USER;
    mmap.pid = mmap.tid = pid;
    mmap.start = 0x6000 + (i % 4) * kPage;
    mmap.len = 0x3000;
    mmap.filename = "/bin/child";
    EXPECT_TRUE(machine.Apply(mmap).ok());
    CommEvent exec;
    exec.misc = PERF_RECORD_MISC_COMM_EXEC;
    exec.pid = exec.tid = pid;
    exec.comm = "child";
    EXPECT_TRUE(machine.Apply(exec).ok());
    KsymbolEvent ksym;
    ksym.addr = 0xffffffffa0000000 + (i % 8) * kPage;
    ksym.len = 0x100;
    ksym.name = "bpf_prog";
    ksym.flags = i % 2 == 0 ? 0 : PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER;
    EXPECT_TRUE(machine.Apply(ksym).ok());
    ExitEvent exit;
    exit.pid = exit.tid = pid;
    EXPECT_TRUE(machine.Apply(exit).ok());
  }
  writer_done = true;
  for (std::thread& t : readers) t.join();

  EXPECT_EQ(violations.count(), 0) << violations.Summary();
  EXPECT_EQ(machine.thread_count(), 1u);   // every child exited
  EXPECT_EQ(machine.process_count(), 1u);  // and its address space was let go
}

}  // namespace
}  // namespace perftk::machine
