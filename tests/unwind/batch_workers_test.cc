#include "unwind/batch_workers.h"

#include <atomic>
#include <cstdint>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace perftk::unwind {
namespace {

// Every item of every batch runs exactly once, in a call no larger than the
// chunk, on a lane below the number asked for.
TEST(BatchWorkersTest, RunsEveryItemOnceOnItsLanes) {
  constexpr size_t kLanes = 3, kChunk = 4;
  BatchWorkers workers(kLanes, kChunk);
  ASSERT_EQ(workers.threads(), kLanes);
  std::vector<std::vector<std::atomic<int>>> runs;
  const std::vector<size_t> sizes = {1, 0, 17, 100, 3};
  for (size_t size : sizes) runs.emplace_back(size);
  std::atomic<bool> bad_call{false};
  std::vector<uint64_t> tickets;
  for (size_t b = 0; b < sizes.size(); ++b) {
    tickets.push_back(workers.Submit(sizes[b], [&, b](size_t lane, size_t begin, size_t end) {
      if (lane >= kLanes || begin >= end || end - begin > kChunk) bad_call = true;
      for (size_t i = begin; i < end; ++i) ++runs[b][i];
    }));
  }
  for (uint64_t ticket : tickets) {
    workers.Wait(ticket);
    EXPECT_TRUE(workers.Finished(ticket));
  }
  EXPECT_FALSE(bad_call);
  for (size_t b = 0; b < sizes.size(); ++b) {
    for (size_t i = 0; i < sizes[b]; ++i) EXPECT_EQ(runs[b][i].load(), 1) << b << " " << i;
  }
}

// A lane is one thread's: its state is never touched by two threads at once
// (TSan would see the unsynchronized counters race otherwise).
TEST(BatchWorkersTest, ALaneIsUsedByOneThread) {
  constexpr size_t kLanes = 2;
  BatchWorkers workers(kLanes, 1);
  std::vector<uint64_t> per_lane(kLanes, 0);  // no lock: lanes are not shared
  std::mutex mu;
  std::set<std::pair<size_t, std::thread::id>> seen;
  std::vector<uint64_t> tickets;
  for (int b = 0; b < 20; ++b) {
    tickets.push_back(workers.Submit(50, [&](size_t lane, size_t begin, size_t end) {
      per_lane[lane] += end - begin;
      std::lock_guard<std::mutex> lock(mu);
      seen.insert({lane, std::this_thread::get_id()});
    }));
  }
  for (uint64_t ticket : tickets) workers.Wait(ticket);
  EXPECT_EQ(per_lane[0] + per_lane[1], 20u * 50u);
  std::set<size_t> lanes;
  for (const auto& [lane, thread] : seen) {
    EXPECT_TRUE(lanes.insert(lane).second) << "lane " << lane << " ran on two threads";
  }
}

// Batches may finish out of order; a finished one stays finished, and one
// still running is not.
TEST(BatchWorkersTest, FinishedTellsRunningFromDone) {
  BatchWorkers workers(1, 1);
  std::atomic<bool> release{false};
  const uint64_t slow = workers.Submit(1, [&](size_t, size_t, size_t) {
    while (!release) std::this_thread::yield();
  });
  const uint64_t quick = workers.Submit(1, [](size_t, size_t, size_t) {});
  EXPECT_NE(slow, quick);
  EXPECT_FALSE(workers.Finished(slow));
  EXPECT_FALSE(workers.Finished(quick));  // one thread: it waits behind the slow one
  release = true;
  workers.Wait(quick);
  EXPECT_TRUE(workers.Finished(slow));
  EXPECT_TRUE(workers.Finished(quick));
}

// Destroyed with batches queued: running calls finish, the rest is dropped,
// nothing hangs.
TEST(BatchWorkersTest, StopsWithWorkQueued) {
  std::atomic<int> calls{0};
  {
    BatchWorkers workers(2, 1);
    for (int b = 0; b < 10; ++b) {
      workers.Submit(1000, [&](size_t, size_t, size_t) { ++calls; });
    }
  }
  EXPECT_LE(calls.load(), 10 * 1000);
}

// The caller's own lane: Help runs waiting items there while more than it
// leaves wait, on the caller's thread; what it leaves is the threads'.
TEST(BatchWorkersTest, TheCallerHelpsOnItsOwnLane) {
  BatchWorkers workers(1, 1);
  const std::thread::id caller = std::this_thread::get_id();
  std::atomic<bool> started{false}, release{false};
  // Keep the thread busy so that the caller's share is known.
  const uint64_t slow = workers.Submit(1, [&](size_t, size_t, size_t) {
    started = true;
    while (!release) std::this_thread::yield();
  });
  while (!started) std::this_thread::yield();
  std::vector<int> runs(100, 0);
  std::atomic<int> by_caller{0};
  std::atomic<bool> bad_lane{false};
  const uint64_t ticket = workers.Submit(100, [&](size_t lane, size_t begin, size_t end) {
    const bool on_caller = std::this_thread::get_id() == caller;
    if (on_caller != (lane == 1)) bad_lane = true;
    if (on_caller) by_caller += static_cast<int>(end - begin);
    for (size_t i = begin; i < end; ++i) ++runs[i];
  });
  workers.Help(1, 10);
  EXPECT_EQ(by_caller.load(), 90);
  release = true;
  workers.Wait(ticket, 1);
  workers.Wait(slow, 1);
  EXPECT_FALSE(bad_lane);
  for (size_t i = 0; i < runs.size(); ++i) EXPECT_EQ(runs[i], 1) << i;
}

// Waiting with a lane, the caller runs what waits instead of blocking: a
// batch finishes while the only thread is stuck in another.
TEST(BatchWorkersTest, AWaitingCallerRunsWhatWaits) {
  BatchWorkers workers(1, 4);
  std::atomic<bool> started{false}, release{false};
  const uint64_t stuck = workers.Submit(1, [&](size_t, size_t, size_t) {
    started = true;
    while (!release) std::this_thread::yield();
  });
  while (!started) std::this_thread::yield();
  std::atomic<int> runs{0};
  const uint64_t ticket = workers.Submit(10, [&](size_t lane, size_t begin, size_t end) {
    EXPECT_EQ(lane, 1u);
    runs += static_cast<int>(end - begin);
  });
  workers.Wait(ticket, 1);
  EXPECT_EQ(runs.load(), 10);
  EXPECT_FALSE(workers.Finished(stuck));
  release = true;
  workers.Wait(stuck, 1);
  EXPECT_TRUE(workers.Finished(stuck));
}

}  // namespace
}  // namespace perftk::unwind
