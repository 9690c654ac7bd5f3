// A fixed set of threads that run batches of work while the caller goes on
// reading: the caller submits a batch of `items` items and later waits for
// it; the threads take the items of the oldest unstarted batch a few at a
// time, each thread calling work(lane, begin, end) with its own lane number
// (0 .. lanes-1). One lane is only ever used by one thread, so the state a
// lane owns needs no lock.
//
// The caller may work too, on a lane of its own that no thread uses: Help
// takes items while more than a given number wait, and Wait with a lane
// takes items instead of blocking while any wait. So `lanes` threads and
// the caller keep lanes + 1 CPUs busy, and lanes = CPUs - 1 runs no more
// threads than there are CPUs.
//
// Batches finish in any order but are waited for one at a time, by their
// ticket. The destructor lets running calls finish, drops the rest and joins
// the threads. A system that starts fewer threads than asked for gets the
// work done on those it started; one that starts none gets it done by the
// caller, in Submit.
#ifndef PERFTK_UNWIND_BATCH_WORKERS_H_
#define PERFTK_UNWIND_BATCH_WORKERS_H_

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/container/flat_hash_map.h"

namespace perftk::unwind {

class BatchWorkers {
 public:
  // Runs items [begin, end) of a batch on `lane`.
  using Work = std::function<void(size_t lane, size_t begin, size_t end)>;

  // `lanes` threads, taking `chunk` items at a time.
  BatchWorkers(size_t lanes, size_t chunk);
  ~BatchWorkers();
  BatchWorkers(const BatchWorkers&) = delete;
  BatchWorkers& operator=(const BatchWorkers&) = delete;

  // Queues items [0, items) of `work`; the ticket names the batch.
  uint64_t Submit(size_t items, Work work);
  // Whether every item of the batch has run.
  bool Finished(uint64_t ticket);
  // Blocks until every item of the batch has run.
  void Wait(uint64_t ticket);
  // The same, but the caller runs waiting items on `lane` (one no thread
  // uses) while there are any.
  void Wait(uint64_t ticket, size_t lane);
  // The caller runs waiting items on `lane` while more than `leave` wait.
  void Help(size_t lane, size_t leave);

  // The threads running (fewer than the lanes asked for if the system
  // refused some).
  size_t threads() const { return threads_.size(); }

 private:
  struct Batch {
    uint64_t ticket = 0;
    size_t items = 0;
    size_t next = 0;  // the first item no thread has taken
    Work work;
  };

  void Run(size_t lane);
  // With the lock held and an item waiting: runs the next chunk on `lane`
  // (without the lock) and counts it done.
  void RunChunk(std::unique_lock<std::mutex>& lock, size_t lane);

  const size_t chunk_;
  std::mutex mu_;
  std::condition_variable work_ready_;
  std::condition_variable batch_done_;
  std::deque<std::shared_ptr<Batch>> queue_;           // batches with items not yet taken
  size_t waiting_items_ = 0;                           // items of queue_ not yet taken
  absl::flat_hash_map<uint64_t, size_t> unfinished_;  // ticket -> items not yet run
  uint64_t next_ticket_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace perftk::unwind

#endif  // PERFTK_UNWIND_BATCH_WORKERS_H_
