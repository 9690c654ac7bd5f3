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
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  work_ready_.notify_all();
  for (std::thread& thread : threads_) thread.join();
}

uint64_t LanePool::Submit(uint64_t lane, Task task) {
  if (threads_.empty()) {
    task();
    std::lock_guard lock(mu_);
    return next_ticket_++;
  }
  std::lock_guard lock(mu_);
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
  work_ready_.notify_one();
}

bool LanePool::Done(uint64_t ticket) {
  std::lock_guard lock(mu_);
  return !unfinished_.contains(ticket);
}

void LanePool::Wait(uint64_t ticket) {
  std::unique_lock lock(mu_);
  task_done_.wait(lock, [&] { return !unfinished_.contains(ticket); });
}

void LanePool::Work() {
  std::unique_lock lock(mu_);
  while (true) {
    work_ready_.wait(lock, [&] { return stopping_ || !ready_.empty(); });
    if (stopping_) return;
    const uint64_t lane = ready_.begin()->second;
    ready_.erase(ready_.begin());
    Lane& state = lanes_[lane];
    auto [ticket, task] = std::move(state.queue.front());
    state.queue.pop_front();
    state.running = true;
    lock.unlock();
    task();
    task = nullptr;  // whatever the task holds goes before the ticket is done
    lock.lock();
    state.running = false;
    unfinished_.erase(ticket);
    MarkReady(lane, state);
    task_done_.notify_all();
  }
}

}  // namespace perftk::cs_etm
