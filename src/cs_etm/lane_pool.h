// Runs tasks on worker threads, lane by lane.
//
// Each task is submitted on a lane. Tasks of one lane run one at a time, in
// the order they were submitted, so whatever state a lane owns is touched by
// one thread at a time and sees its tasks in order; tasks of different lanes
// run concurrently. When several lanes have work, the one whose next task was
// submitted first runs first, so the oldest work finishes first.
//
// Submit returns a ticket; Wait(ticket) blocks until that task has run.
// With zero threads, Submit runs the task at once on the calling thread.
// When the system will not start as many threads as asked, the pool works
// with those that started (none: as with zero).
// Destruction lets running tasks finish, drops the others and joins.
#ifndef PERFTK_CS_ETM_LANE_POOL_H_
#define PERFTK_CS_ETM_LANE_POOL_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "base/mutex.h"

namespace perftk::cs_etm {

class LanePool {
 public:
  using Task = std::function<void()>;

  explicit LanePool(size_t threads);
  ~LanePool();
  LanePool(const LanePool&) = delete;
  LanePool& operator=(const LanePool&) = delete;

  uint64_t Submit(uint64_t lane, Task task);
  bool Done(uint64_t ticket);
  void Wait(uint64_t ticket);
  // How many worker threads run.
  size_t threads() const { return threads_.size(); }

 private:
  struct Lane {
    std::deque<std::pair<uint64_t, Task>> queue;  // (ticket, task)
    bool running = false;
  };

  void Work();
  // Makes `lane` ready to run if it is idle and has work.
  void MarkReady(uint64_t lane, Lane& state) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  base::Mutex mu_;
  base::CondVar work_ready_;
  base::CondVar task_done_;
  std::map<uint64_t, Lane> lanes_ ABSL_GUARDED_BY(mu_);
  std::set<std::pair<uint64_t, uint64_t>> ready_ ABSL_GUARDED_BY(mu_);  // (head ticket, lane)
  std::set<uint64_t> unfinished_ ABSL_GUARDED_BY(mu_);
  uint64_t next_ticket_ ABSL_GUARDED_BY(mu_) = 1;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::thread> threads_;
};

}  // namespace perftk::cs_etm

#endif  // PERFTK_CS_ETM_LANE_POOL_H_
