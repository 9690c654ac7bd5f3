// LanePool: tasks of one lane run one at a time in submit order; lanes run
// concurrently; Wait/Done follow tickets; zero threads runs inline.
#include "cs_etm/lane_pool.h"

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "../testing/forbid_new_threads.h"

namespace perftk::cs_etm {
namespace {

TEST(LanePool, ZeroThreadsRunsAtSubmit) {
  LanePool pool(0);
  int ran = 0;
  uint64_t ticket = pool.Submit(3, [&] { ++ran; });
  EXPECT_EQ(ran, 1);
  EXPECT_TRUE(pool.Done(ticket));
  pool.Wait(ticket);
}

// A process that may start no more threads: the pool runs tasks at submit,
// in order, as with zero threads.
TEST(LanePool, NoThreadStartsRunsAtSubmit) {
  if (!testing::kCanForbidThreads) GTEST_SKIP() << "RLIMIT_AS and sanitizers do not mix";
  EXPECT_EXIT(
      {
        if (!testing::ForbidNewThreads()) _exit(3);
        LanePool pool(2);
        if (pool.threads() != 0) _exit(4);
        std::vector<int> order;
        for (int i = 0; i < 6; ++i) {
          const uint64_t ticket = pool.Submit(i % 2, [&order, i] { order.push_back(i); });
          if (!pool.Done(ticket)) _exit(5);
          pool.Wait(ticket);
        }
        _exit(order == std::vector<int>{0, 1, 2, 3, 4, 5} ? 0 : 6);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(LanePool, OneLaneRunsInOrderAndAlone) {
  LanePool pool(4);
  constexpr int kLanes = 3;
  constexpr int kTasks = 200;
  std::mutex mu;
  std::map<int, std::vector<int>> order;
  std::atomic<int> running[kLanes] = {};
  std::atomic<bool> overlap{false};
  std::vector<uint64_t> tickets;
  for (int i = 0; i < kTasks; ++i) {
    const int lane = i % kLanes;
    tickets.push_back(pool.Submit(lane, [&, lane, i] {
      if (running[lane].fetch_add(1) != 0) overlap = true;
      std::this_thread::sleep_for(std::chrono::microseconds(50));
      {
        std::lock_guard lock(mu);
        order[lane].push_back(i);
      }
      running[lane].fetch_sub(1);
    }));
  }
  for (uint64_t ticket : tickets) pool.Wait(ticket);
  for (uint64_t ticket : tickets) EXPECT_TRUE(pool.Done(ticket));
  EXPECT_FALSE(overlap) << "two tasks of one lane ran at once";
  for (int lane = 0; lane < kLanes; ++lane) {
    ASSERT_EQ(order[lane].size(), static_cast<size_t>(kTasks / kLanes + (lane < kTasks % kLanes)));
    for (size_t k = 1; k < order[lane].size(); ++k) {
      EXPECT_LT(order[lane][k - 1], order[lane][k]) << "lane " << lane;
    }
  }
}

// Two lanes make progress at the same time: each task waits for the other
// lane's task to start, which would never happen on one thread.
TEST(LanePool, LanesRunConcurrently) {
  LanePool pool(2);
  std::atomic<int> started{0};
  std::atomic<int> met{0};
  auto meet = [&] {
    started.fetch_add(1);
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (started.load() < 2 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::yield();
    }
    if (started.load() == 2) met.fetch_add(1);
  };
  uint64_t a = pool.Submit(1, meet);
  uint64_t b = pool.Submit(2, meet);
  pool.Wait(a);
  pool.Wait(b);
  EXPECT_EQ(met.load(), 2) << "the lanes did not run at the same time";
}

TEST(LanePool, DestructionWithQueuedTasksJoins) {
  std::atomic<int> ran{0};
  {
    LanePool pool(1);
    for (int i = 0; i < 50; ++i) pool.Submit(0, [&] { ran.fetch_add(1); });
  }
  EXPECT_LE(ran.load(), 50);
}

}  // namespace
}  // namespace perftk::cs_etm
