#include "pipeline/ordered_batches.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "perf/record.h"
#include "pipeline/tool.h"

namespace perftk::pipeline {
namespace {

using Options = OrderedBatches::Options;

// Submits `sizes.size()` batches whose items sleep a random while and
// record their lane, and returns each batch's sum as written, in the order
// written. Checks the calls' arguments and that every item ran before its
// batch was written.
struct Outcome {
  std::vector<uint64_t> written;  // tickets, in the order written
  std::vector<uint64_t> sums;     // each written batch's sum of item values
  size_t most_in_flight = 0;
  size_t most_items_in_flight = 0;
  bool bad_call = false;
};

Outcome RunBatches(const Options& options, const std::vector<size_t>& sizes, uint32_t seed) {
  OrderedBatches batches(options);
  Outcome run;
  std::vector<std::unique_ptr<std::vector<uint64_t>>> values;
  std::atomic<bool> bad_call{false};
  std::mt19937 random(seed);
  auto write = [&](uint64_t ticket) {
    uint64_t sum = 0;
    for (uint64_t v : *values[ticket]) {
      if (v == 0) bad_call = true;  // an item not run
      sum += v;
    }
    run.written.push_back(ticket);
    run.sums.push_back(sum);
    return absl::OkStatus();
  };
  for (size_t b = 0; b < sizes.size(); ++b) {
    values.push_back(std::make_unique<std::vector<uint64_t>>(sizes[b], 0));
    std::vector<uint64_t>* items = values.back().get();
    const uint32_t delay_seed = random();
    absl::StatusOr<uint64_t> ticket = batches.Submit(
        sizes[b],
        [&, items, b, delay_seed](size_t lane, size_t begin, size_t end) {
          if (lane >= options.jobs || begin >= end || end - begin > options.chunk) bad_call = true;
          std::minstd_rand delay(delay_seed + static_cast<uint32_t>(begin));
          std::this_thread::sleep_for(std::chrono::microseconds(delay() % 200));
          for (size_t i = begin; i < end; ++i) (*items)[i] = (b + 1) * 1000 + i;
        },
        write);
    EXPECT_TRUE(ticket.ok()) << ticket.status();
    if (ticket.ok()) {
      EXPECT_EQ(*ticket, b);
    }
    run.most_in_flight = std::max(run.most_in_flight, batches.in_flight());
    run.most_items_in_flight = std::max(run.most_items_in_flight, batches.items_in_flight());
  }
  EXPECT_TRUE(batches.Drain(write).ok());
  EXPECT_EQ(batches.in_flight(), 0u);
  run.bad_call = bad_call;
  return run;
}

TEST(OrderedBatchesTest, WritesInTicketOrderWithRandomWorkTimes) {
  const std::vector<size_t> sizes = {1, 0, 17, 100, 3, 64, 0, 5, 33, 2, 9, 40};
  for (bool caller_runs : {true, false}) {
    for (size_t jobs : {1, 2, 3, 5}) {
      Outcome run = RunBatches({.jobs = jobs,
                                .chunk = 4,
                                .max_in_flight = 3,
                                .caller_leaves = 8,
                                .caller_runs = caller_runs},
                               sizes, static_cast<uint32_t>(jobs));
      EXPECT_FALSE(run.bad_call) << jobs;
      ASSERT_EQ(run.written.size(), sizes.size()) << jobs;
      for (size_t b = 0; b < sizes.size(); ++b) {
        EXPECT_EQ(run.written[b], b) << jobs;
        uint64_t sum = 0;
        for (size_t i = 0; i < sizes[b]; ++i) sum += (b + 1) * 1000 + i;
        EXPECT_EQ(run.sums[b], sum) << jobs << " " << b;
      }
    }
  }
}

TEST(OrderedBatchesTest, OneJobWritesWhatManyWrite) {
  const std::vector<size_t> sizes = {7, 250, 1, 0, 31, 12};
  Outcome one = RunBatches({.jobs = 1, .chunk = 5, .max_in_flight = 2}, sizes, 7);
  Outcome many = RunBatches({.jobs = 4, .chunk = 5, .max_in_flight = 2}, sizes, 7);
  EXPECT_EQ(one.written, many.written);
  EXPECT_EQ(one.sums, many.sums);
  // One job runs and writes each batch in its Submit.
  EXPECT_EQ(one.most_in_flight, 0u);
}

TEST(OrderedBatchesTest, KeepsAtMostMaxInFlight) {
  const std::vector<size_t> sizes(40, 9);
  for (size_t max : {0, 1, 4}) {
    Outcome run = RunBatches({.jobs = 3, .chunk = 2, .max_in_flight = max}, sizes, 3);
    EXPECT_LE(run.most_in_flight, max);
    EXPECT_EQ(run.written.size(), sizes.size());
  }
}

// Small batches may be many in flight, large ones few; one larger than
// the bound waits alone.
TEST(OrderedBatchesTest, KeepsAtMostMaxItemsInFlight) {
  const std::vector<size_t> sizes = {3, 3, 3, 3, 3, 3, 3, 3, 10, 10, 25, 1, 1, 1, 40, 2, 2};
  for (size_t jobs : {1, 3}) {
    Outcome run = RunBatches(
        {.jobs = jobs, .chunk = 2, .max_in_flight = 6, .max_items_in_flight = 12}, sizes, 5);
    EXPECT_FALSE(run.bad_call);
    EXPECT_EQ(run.written.size(), sizes.size());
    EXPECT_LE(run.most_in_flight, 6u);
    EXPECT_LE(run.most_items_in_flight, 40u);  // the batch of 40 alone
  }
  // Without the batch larger than the bound, the bound itself (the caller
  // leaves the work to the threads, so batches pile up to it).
  Outcome run = RunBatches(
      {.jobs = 3, .chunk = 2, .max_in_flight = 6, .max_items_in_flight = 12, .caller_leaves = 1000},
      {3, 3, 3, 3, 3, 3, 3, 10, 10, 2, 2, 2, 1}, 5);
  EXPECT_FALSE(run.bad_call);
  EXPECT_LE(run.most_items_in_flight, 12u);
}

// Nothing the writer reads changes while work runs if the caller drains
// first: after Drain, no work of an earlier batch is running or waiting.
TEST(OrderedBatchesTest, DrainRunsAndWritesEverything) {
  OrderedBatches batches({.jobs = 3, .chunk = 1, .max_in_flight = 8, .caller_leaves = 100});
  std::atomic<int> running{0};
  std::atomic<int> ran{0};
  int model = 0;  // what the work reads; the caller changes it between drains
  bool model_changed_under_work = false;
  std::vector<uint64_t> written;
  auto write = [&](uint64_t ticket) {
    written.push_back(ticket);
    return absl::OkStatus();
  };
  for (int round = 0; round < 5; ++round) {
    for (int b = 0; b < 4; ++b) {
      ASSERT_TRUE(batches
                      .Submit(
                          10,
                          [&, expected = model](size_t, size_t, size_t) {
                            ++running;
                            if (model != expected) model_changed_under_work = true;
                            std::this_thread::sleep_for(std::chrono::microseconds(50));
                            ++ran;
                            --running;
                          },
                          write)
                      .ok());
    }
    ASSERT_TRUE(batches.Drain(write).ok());
    EXPECT_EQ(running.load(), 0);
    EXPECT_EQ(ran.load(), (round + 1) * 40);
    EXPECT_EQ(batches.in_flight(), 0u);
    ++model;
  }
  EXPECT_FALSE(model_changed_under_work);
  ASSERT_EQ(written.size(), 20u);
  for (uint64_t i = 0; i < written.size(); ++i) EXPECT_EQ(written[i], i);
}

// A lane is one thread's: state it owns needs no lock (TSan would see the
// counters race otherwise).
TEST(OrderedBatchesTest, ALaneIsUsedByOneThread) {
  constexpr size_t kJobs = 3;
  OrderedBatches batches({.jobs = kJobs, .chunk = 1, .max_in_flight = 2, .caller_leaves = 2});
  std::vector<uint64_t> per_lane(kJobs, 0);
  std::mutex mu;
  std::set<std::pair<size_t, std::thread::id>> seen;
  auto write = [](uint64_t) { return absl::OkStatus(); };
  for (int b = 0; b < 50; ++b) {
    ASSERT_TRUE(batches
                    .Submit(
                        20,
                        [&](size_t lane, size_t begin, size_t end) {
                          per_lane[lane] += end - begin;
                          std::lock_guard<std::mutex> lock(mu);
                          seen.insert({lane, std::this_thread::get_id()});
                        },
                        write)
                    .ok());
  }
  ASSERT_TRUE(batches.Drain(write).ok());
  uint64_t total = 0;
  for (uint64_t n : per_lane) total += n;
  EXPECT_EQ(total, 50u * 20);
  std::set<size_t> lanes;
  for (const auto& [lane, id] : seen) {
    EXPECT_TRUE(lanes.insert(lane).second) << "lane " << lane << " ran on two threads";
    if (lane == batches.caller_lane()) {
      EXPECT_EQ(id, std::this_thread::get_id());
    }
  }
}

// Without caller_runs the caller's lane has a thread of its own: the
// caller only submits and writes, so it is never in the middle of a long
// item when the threads run out of work. With one job it still runs all.
TEST(OrderedBatchesTest, ACallerThatDoesNotRunLeavesItsLaneToAThread) {
  for (size_t jobs : {1, 2, 3}) {
    OrderedBatches batches({.jobs = jobs, .chunk = 1, .max_in_flight = 4, .caller_runs = false});
    EXPECT_EQ(batches.threads(), jobs == 1 ? 0u : jobs) << jobs;
    std::mutex mu;
    std::set<std::pair<size_t, std::thread::id>> seen;
    std::vector<uint64_t> written;
    auto write = [&](uint64_t ticket) {
      written.push_back(ticket);
      return absl::OkStatus();
    };
    for (int b = 0; b < 40; ++b) {
      ASSERT_TRUE(batches
                      .Submit(
                          3,
                          [&](size_t lane, size_t, size_t) {
                            std::this_thread::sleep_for(std::chrono::microseconds(50));
                            std::lock_guard<std::mutex> lock(mu);
                            seen.insert({lane, std::this_thread::get_id()});
                          },
                          write)
                      .ok());
    }
    ASSERT_TRUE(batches.Drain(write).ok());
    ASSERT_EQ(written.size(), 40u) << jobs;
    for (uint64_t i = 0; i < written.size(); ++i) EXPECT_EQ(written[i], i) << jobs;
    std::set<size_t> lanes;
    for (const auto& [lane, id] : seen) {
      EXPECT_LT(lane, jobs);
      EXPECT_TRUE(lanes.insert(lane).second) << "lane " << lane << " ran on two threads";
      EXPECT_EQ(id == std::this_thread::get_id(), jobs == 1) << jobs << " lane " << lane;
    }
  }
}

// Batches that run after the last one of their key see their key's
// batches one at a time, in order, while other keys' run beside them.
TEST(OrderedBatchesTest, BatchesRunAfterTheTicketsTheyName) {
  constexpr size_t kKeys = 3;
  for (const auto& [jobs, caller_runs] :
       std::vector<std::pair<size_t, bool>>{{1, true}, {2, true}, {4, true}, {2, false}}) {
    OrderedBatches batches({.jobs = jobs,
                            .chunk = 1,
                            .max_in_flight = 6,
                            .caller_leaves = 1,
                            .caller_runs = caller_runs});
    std::vector<std::atomic<int>> running(kKeys);
    std::vector<int64_t> last_run(kKeys, -1);  // per key: no lock, one batch at a time
    std::atomic<bool> bad{false};
    std::vector<std::optional<uint64_t>> last_ticket(kKeys);
    std::mt19937 random(static_cast<uint32_t>(jobs));
    std::vector<uint64_t> written;
    auto write = [&](uint64_t ticket) {
      written.push_back(ticket);
      return absl::OkStatus();
    };
    for (int64_t b = 0; b < 90; ++b) {
      const size_t key = random() % kKeys;
      const int delay = static_cast<int>(random() % 300);
      std::vector<uint64_t> after;
      if (last_ticket[key]) after.push_back(*last_ticket[key]);
      absl::StatusOr<uint64_t> ticket = batches.Submit(
          1,
          [&, key, b, delay](size_t, size_t, size_t) {
            if (running[key]++ != 0) bad = true;
            std::this_thread::sleep_for(std::chrono::microseconds(delay));
            if (last_run[key] >= b) bad = true;
            last_run[key] = b;
            --running[key];
          },
          write, after);
      ASSERT_TRUE(ticket.ok());
      last_ticket[key] = *ticket;
    }
    ASSERT_TRUE(batches.Drain(write).ok());
    EXPECT_FALSE(bad) << jobs << " " << caller_runs;
    ASSERT_EQ(written.size(), 90u);
    for (uint64_t i = 0; i < written.size(); ++i) EXPECT_EQ(written[i], i);
  }
}

TEST(OrderedBatchesTest, AWritersErrorStopsTheStage) {
  for (bool caller_runs : {true, false}) {
    OrderedBatches batches({.jobs = 2, .chunk = 1, .max_in_flight = 0, .caller_runs = caller_runs});
    std::atomic<int> ran{0};
    std::vector<uint64_t> written;
    auto write = [&](uint64_t ticket) {
      written.push_back(ticket);
      return ticket == 2 ? absl::DataLossError("bad batch") : absl::OkStatus();
    };
    auto work = [&](size_t, size_t, size_t) { ++ran; };
    for (int b = 0; b < 2; ++b) ASSERT_TRUE(batches.Submit(1, work, write).ok());
    absl::StatusOr<uint64_t> third = batches.Submit(1, work, write);
    EXPECT_EQ(third.status().code(), absl::StatusCode::kDataLoss);
    EXPECT_EQ(batches.Submit(1, work, write).status().code(), absl::StatusCode::kDataLoss);
    EXPECT_EQ(batches.Drain(write).code(), absl::StatusCode::kDataLoss);
    EXPECT_EQ(written, (std::vector<uint64_t>{0, 1, 2}));
    EXPECT_EQ(ran.load(), 3) << caller_runs;  // nothing runs after the error
  }
}

// Abandon returns once the running calls finish, with the waiting ones
// dropped and their closures gone; nothing is written after it.
TEST(OrderedBatchesTest, AbandonWhileWorkRuns) {
  auto batches = std::make_unique<OrderedBatches>(
      OrderedBatches::Options{.jobs = 3, .chunk = 1, .max_in_flight = 100, .caller_leaves = 1000});
  std::atomic<bool> release{false};
  std::atomic<int> started{0};
  std::atomic<int> finished{0};
  auto held = std::make_shared<int>(0);
  int writes = 0;
  auto write = [&](uint64_t) {
    ++writes;
    return absl::OkStatus();
  };
  for (int b = 0; b < 10; ++b) {
    ASSERT_TRUE(batches
                    ->Submit(
                        5,
                        [&, held](size_t, size_t, size_t) {
                          ++started;
                          while (!release) std::this_thread::yield();
                          ++finished;
                        },
                        write)
                    .ok());
  }
  while (started < 2) std::this_thread::yield();  // both threads are in work
  std::thread releaser([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    release = true;
  });
  batches->Abandon();
  releaser.join();
  EXPECT_EQ(started.load(), finished.load());
  EXPECT_LT(finished.load(), 50);
  EXPECT_EQ(held.use_count(), 1);  // every closure is gone
  EXPECT_EQ(batches->in_flight(), 0u);
  EXPECT_EQ(batches
                ->Submit(
                    1, [](size_t, size_t, size_t) {}, write)
                .status()
                .code(),
            absl::StatusCode::kCancelled);
  batches.reset();
  EXPECT_EQ(writes, 0);
}

TEST(OrderedBatchesTest, DestructorJoinsWithWorkWaiting) {
  std::atomic<int> ran{0};
  {
    OrderedBatches batches({.jobs = 4, .chunk = 3, .max_in_flight = 50, .caller_leaves = 1000});
    for (int b = 0; b < 20; ++b) {
      ASSERT_TRUE(
          batches
              .Submit(
                  30,
                  [&](size_t, size_t begin, size_t end) { ran += static_cast<int>(end - begin); },
                  [](uint64_t) { return absl::OkStatus(); })
              .ok());
    }
  }
  EXPECT_LE(ran.load(), 600);
}

// Passed records and written batches, in the order they came out: "b" and
// the ticket, "r" and the record's file offset.
class OrderLog : public RecordSink {
 public:
  absl::Status Emit(const perf::Record& record) override {
    lines.push_back("r" + std::to_string(record.file_offset()));
    return absl::OkStatus();
  }
  absl::Status Write(uint64_t ticket) {
    lines.push_back("b" + std::to_string(ticket));
    return absl::OkStatus();
  }
  std::vector<std::string> lines;
};

// A bare record header, told apart by its file offset.
perf::Record RecordAt(uint64_t offset) {
  static const std::vector<std::byte> bytes = {
      std::byte{1}, std::byte{0}, std::byte{0}, std::byte{0},   // type
      std::byte{0}, std::byte{0}, std::byte{8}, std::byte{0}};  // misc, size
  return perf::Record(bytes, offset);
}

// Batches whose work sleeps a random while, with records passed between
// them: each record comes out right after the batch before it.
TEST(OrderedBatchesTest, PassedRecordsComeOutBehindTheBatchesBeforeThem) {
  for (const auto& [jobs, caller_runs] :
       std::vector<std::pair<size_t, bool>>{{1, true}, {3, true}, {3, false}}) {
    OrderedBatches batches({.jobs = jobs,
                            .chunk = 1,
                            .max_in_flight = 4,
                            .caller_leaves = 1,
                            .caller_runs = caller_runs});
    OrderLog log;
    auto write = [&](uint64_t ticket) { return log.Write(ticket); };
    std::mt19937 random(7);
    std::vector<std::string> expected;
    ASSERT_TRUE(batches.Pass(RecordAt(100), log, write).ok());  // nothing before it
    expected.push_back("r100");
    EXPECT_EQ(log.lines, expected) << "jobs " << jobs;
    for (uint64_t b = 0; b < 30; ++b) {
      const auto sleep = std::chrono::microseconds(random() % 500);
      ASSERT_TRUE(
          batches
              .Submit(
                  2, [sleep](size_t, size_t, size_t) { std::this_thread::sleep_for(sleep); }, write)
              .ok());
      expected.push_back("b" + std::to_string(b));
      for (uint64_t r = 0; r < b % 3; ++r) {
        ASSERT_TRUE(batches.Pass(RecordAt(b * 10 + r), log, write).ok());
        expected.push_back("r" + std::to_string(b * 10 + r));
      }
    }
    ASSERT_TRUE(batches.Drain(write).ok());
    EXPECT_EQ(batches.waiting_records(), 0u);
    EXPECT_EQ(log.lines, expected) << "jobs " << jobs;
  }
}

// A stage of two lanes with one batch whose item waits on the thread
// until released (the caller leaves it one item, or it would wait in it
// itself), and what comes out of it.
class HeldBatch {
 public:
  explicit HeldBatch(size_t max_waiting_records)
      : batches_({.jobs = 2,
                  .chunk = 1,
                  .max_in_flight = 8,
                  .caller_leaves = 1,
                  .max_waiting_records = max_waiting_records}) {
    EXPECT_TRUE(batches_
                    .Submit(
                        1,
                        [this](size_t, size_t, size_t) {
                          while (!released_) std::this_thread::sleep_for(kPoll);
                        },
                        Writer())
                    .ok());
  }
  // Lets the item end, so that a test that stops early does not hang.
  ~HeldBatch() { Release(); }

  absl::Status Pass(uint64_t offset) { return batches_.Pass(RecordAt(offset), log_, Writer()); }
  void Release() { released_ = true; }

  OrderedBatches& batches() { return batches_; }
  const std::vector<std::string>& lines() const { return log_.lines; }

 private:
  static constexpr std::chrono::microseconds kPoll{50};
  std::function<absl::Status(uint64_t)> Writer() {
    return [this](uint64_t ticket) { return log_.Write(ticket); };
  }

  OrderLog log_;
  std::atomic<bool> released_{false};
  OrderedBatches batches_;  // last: joined before the rest goes
};

TEST(OrderedBatchesTest, TooManyWaitingRecordsDrainTheStage) {
  HeldBatch held(/*max_waiting_records=*/3);
  for (uint64_t r = 0; r < 3; ++r) ASSERT_TRUE(held.Pass(r).ok());
  EXPECT_EQ(held.batches().waiting_records(), 3u);
  EXPECT_EQ(held.batches().in_flight(), 1u);
  held.Release();
  // The fourth is one too many: the batch and the records before it go out.
  ASSERT_TRUE(held.Pass(3).ok());
  EXPECT_EQ(held.batches().waiting_records(), 0u);
  EXPECT_EQ(held.batches().in_flight(), 0u);
  EXPECT_EQ(held.lines(), (std::vector<std::string>{"b0", "r0", "r1", "r2", "r3"}));
}

TEST(OrderedBatchesTest, AbandonDropsTheWaitingRecords) {
  HeldBatch held(/*max_waiting_records=*/4096);
  ASSERT_TRUE(held.Pass(1).ok());
  held.Release();
  held.batches().Abandon();
  EXPECT_EQ(held.batches().waiting_records(), 0u);
  EXPECT_EQ(held.Pass(2).code(), absl::StatusCode::kCancelled);
  EXPECT_TRUE(held.lines().empty());
}

}  // namespace
}  // namespace perftk::pipeline
