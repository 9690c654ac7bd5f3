// OrderedBatches: a parallel stage whose results come out in the order the
// work went in.
//
// The caller submits batches of items; each batch gets a ticket, counting
// from 0. Worker threads run the items a chunk at a time, the oldest batch
// that may run first, each calling work(lane, begin, end) with a lane of its own; the
// caller writes the finished batches, in ticket order and on its own
// thread, through the Writer it passes to Submit and Drain. So whatever the
// work does runs concurrently, and whatever the writer does (output, the
// state that must change in order) does not.
//
// A batch may name earlier tickets it must run after: no lane takes its
// items before every item of those has run. So batches that share state
// (a decoder that must see its blocks in order) run one after another
// while others run beside them.
//
// Lanes: there are `jobs`, 0 .. jobs - 1. Threads have lanes 0 .. jobs - 2,
// and caller_lane() = jobs - 1 is the caller's. A lane is only ever used
// by one thread, so the state a lane owns needs no lock. The caller works
// too: after queueing a batch it runs items that may run while more than
// `caller_leaves` wait (leaving the threads something to go on with while
// it reads the next batch), and it runs items rather than sleep while it
// waits for a batch to write. Unless `caller_runs` is false: then the
// caller's lane gets a thread too, and the caller only submits, writes
// and sleeps while it waits, so that it never holds up the next batch
// while it runs a long item and the threads run out of work (batches of
// items that take long, on as many threads as cores). With
// jobs 1 there are no threads and the caller runs everything, through the
// same code; a system that starts fewer threads than asked for gets the
// work done on those it started and the caller (on its lane, as if
// caller_runs were true).
//
// Bound: at most `max_in_flight` batches, and items of at most
// `max_items_in_flight` (or one batch, if it has more), are submitted and
// not yet written when Submit returns; Submit waits for (and, when the
// caller runs items, helps with) the oldest while there are more. So batches of many sizes keep the
// threads busy while what they hold stays bounded. Drain writes every
// batch: a caller about to change what the work reads drains first.
//
// Records between batches: Pass(record, out) emits a record to `out` in
// its place in the order, behind every batch submitted before it. With
// none waiting to be written it goes out at once; else a copy waits and
// goes out right after the last batch before it is written. At most
// `max_waiting_records` copies wait: one more drains first.
//
// Errors: work cannot fail (a batch keeps its own error for its writer);
// a writer's error is returned, and returned again by every later Submit
// and Drain, which run and write nothing more. Abandon (and the
// destructor) lets the running calls of work finish, drops every batch not
// written and joins the threads; Submit fails after it.
//
// Not thread-safe apart from the threads it runs: one caller thread.
#ifndef PERFTK_PIPELINE_ORDERED_BATCHES_H_
#define PERFTK_PIPELINE_ORDERED_BATCHES_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "base/mutex.h"
#include "perf/record.h"

namespace perftk::pipeline {

class RecordSink;  // pipeline/tool.h

class OrderedBatches {
 public:
  // Runs items [begin, end) of a batch on `lane`.
  using Work = std::function<void(size_t lane, size_t begin, size_t end)>;
  // Writes the batch of `ticket`, every item of it run.
  using Writer = absl::FunctionRef<absl::Status(uint64_t ticket)>;

  struct Options {
    size_t jobs = 1;                        // the lanes (see above)
    size_t chunk = 1;                       // items a lane takes at a time
    size_t max_in_flight = 1;               // batches submitted and not written, at most
    size_t max_items_in_flight = SIZE_MAX;  // their items, at most
    size_t caller_leaves = 0;               // items a caller that runs leaves to threads
    bool caller_runs = true;                // false: a thread for the caller's lane
    size_t max_waiting_records = 4096;      // records passed, waiting behind batches
  };

  explicit OrderedBatches(const Options& options);
  ~OrderedBatches();
  OrderedBatches(const OrderedBatches&) = delete;
  OrderedBatches& operator=(const OrderedBatches&) = delete;

  // Queues items [0, items) of `work` as the next batch, to run once the
  // batches of `after` (earlier tickets) have run, then writes the
  // finished batches at the front with `write`, waiting for the oldest
  // while more than max_in_flight are not written. Its ticket, or the
  // writer's error.
  absl::StatusOr<uint64_t> Submit(size_t items, Work work, Writer write,
                                  absl::Span<const uint64_t> after = {});
  // Emits `record` to `out` once every batch submitted before it is
  // written (writing the finished ones with `write`); the writer's or
  // `out`'s error.
  absl::Status Pass(const perf::Record& record, RecordSink& out, Writer write);
  // Runs and writes every batch submitted, and the records passed.
  absl::Status Drain(Writer write);
  // Joins the threads (running work finishes) and drops every batch not
  // written.
  void Abandon();

  // Batches submitted and not yet written, and their items.
  size_t in_flight() const { return next_ticket_ - next_to_write_; }
  size_t items_in_flight() const { return items_in_flight_; }
  // Records passed and waiting behind them.
  size_t waiting_records() const { return waiting_.size(); }
  size_t caller_lane() const { return jobs_ - 1; }
  // The threads running (fewer than jobs - 1, or jobs without caller_runs,
  // if the system refused some).
  size_t threads() const { return threads_.size(); }

 private:
  struct Batch {
    uint64_t ticket = 0;
    size_t items = 0;
    Work work;
    std::vector<uint64_t> after;
  };
  // A record passed while batches before it were not written, with where
  // it goes.
  struct WaitingRecord {
    uint64_t behind = 0;  // the ticket of the last batch before it
    perf::OwnedRecord record;
    RecordSink* out = nullptr;
  };
  // A batch with items no lane has taken yet, from `next` on.
  struct Queued {
    std::shared_ptr<const Batch> batch;
    size_t next = 0;
  };

  void RunThread(size_t lane);
  // Runs on `lane`, without the lock, the next chunk of the oldest batch
  // that may run, and counts it run; false if no batch may run.
  bool RunChunk(size_t lane) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool MayRun(const Batch& batch) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool HasRun(uint64_t ticket) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The caller runs items while more than `leave` wait (if it runs items).
  void Help(size_t leave);
  // The caller runs items (if it does), or sleeps when none wait, until
  // every item of `ticket` has run.
  void WaitFor(uint64_t ticket);
  bool Finished(uint64_t ticket);
  size_t& Left(uint64_t ticket) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Writes the finished batches at the front, each with the records
  // waiting behind it, waiting for the oldest while more than `keep` are
  // not written or, unless `keep` is 0, their items are more than
  // max_items_in_flight.
  absl::Status WriteFinished(Writer write, size_t keep);
  bool OverBound(size_t keep) const;
  // Emits the records waiting behind `ticket`, just written.
  absl::Status EmitRecordsBehind(uint64_t ticket);

  const size_t jobs_;
  const size_t chunk_;
  const size_t max_in_flight_;
  const size_t max_items_in_flight_;
  const size_t caller_leaves_;
  bool caller_runs_;  // whether the caller runs items (see Options)
  const size_t max_waiting_records_;

  base::Mutex mu_;
  base::CondVar work_ready_;  // items may run, or stopping_
  base::CondVar batch_done_;  // a batch's last item has run
  // Batches with items no lane has taken, oldest first.
  std::deque<Queued> queue_ ABSL_GUARDED_BY(mu_);
  size_t waiting_items_ ABSL_GUARDED_BY(mu_) = 0;  // items of queue_ not taken
  // Items not yet run of every batch not written, from ticket left_base_.
  std::deque<size_t> left_ ABSL_GUARDED_BY(mu_);
  uint64_t left_base_ ABSL_GUARDED_BY(mu_) = 0;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::thread> threads_;

  // The caller's alone.
  uint64_t next_ticket_ = 0;
  uint64_t next_to_write_ = 0;
  std::deque<size_t> items_;           // of each batch not written, oldest first
  size_t items_in_flight_ = 0;         // their sum
  std::deque<WaitingRecord> waiting_;  // in the order passed
  absl::Status failed_;                // a writer's error, or Abandon's
};

}  // namespace perftk::pipeline

#endif  // PERFTK_PIPELINE_ORDERED_BATCHES_H_
