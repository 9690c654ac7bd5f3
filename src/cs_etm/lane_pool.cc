#include "cs_etm/lane_pool.h"

#include <system_error>

namespace perftk::cs_etm {

LanePool::LanePool(size_t threads) {
  threads_.reserve(threads);
  for (size_t i = 0; i < threads; ++i) {
    try {
      threads_.emplace_back([this] { Work(); });
    } catch (const std::system_error&) {
      break;  // thread or memory limits: the threads that started do the work
    }
  }
}

LanePool::~LanePool() {
  {
    base::MutexLock lock(mu_);
    stopping_ = true;
  }
  work_ready_.NotifyAll();
  for (std::thread& thread : threads_) thread.join();
}

uint64_t LanePool::Submit(uint64_t lane, Task task) {
  if (threads_.empty()) {
    task();
    base::MutexLock lock(mu_);
    return next_ticket_++;
  }
  base::MutexLock lock(mu_);
  const uint64_t ticket = next_ticket_++;
  unfinished_.insert(ticket);
  Lane& state = lanes_[lane];
  state.queue.emplace_back(ticket, std::move(task));
  MarkReady(lane, state);
  return ticket;
}

void LanePool::MarkReady(uint64_t lane, Lane& state) {
  if (state.running || state.queue.empty()) return;
  ready_.insert({state.queue.front().first, lane});
  work_ready_.NotifyOne();
}

bool LanePool::Done(uint64_t ticket) {
  base::MutexLock lock(mu_);
  return !unfinished_.contains(ticket);
}

void LanePool::Wait(uint64_t ticket) {
  base::MutexLock lock(mu_);
  while (unfinished_.contains(ticket)) task_done_.Wait(mu_);
}

void LanePool::Work() {
  base::MutexLock lock(mu_);
  while (true) {
    while (!stopping_ && ready_.empty()) work_ready_.Wait(mu_);
    if (stopping_) return;
    const uint64_t lane = ready_.begin()->second;
    ready_.erase(ready_.begin());
    Lane& state = lanes_[lane];
    auto [ticket, task] = std::move(state.queue.front());
    state.queue.pop_front();
    state.running = true;
    mu_.Unlock();
    task();
    task = nullptr;  // whatever the task holds goes before the ticket is done
    mu_.Lock();
    state.running = false;
    unfinished_.erase(ticket);
    MarkReady(lane, state);
    task_done_.NotifyAll();
  }
}

}  // namespace perftk::cs_etm
