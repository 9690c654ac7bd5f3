#include "unwind/batch_workers.h"

#include <algorithm>
#include <system_error>
#include <utility>

namespace perftk::unwind {

BatchWorkers::BatchWorkers(size_t lanes, size_t chunk) : chunk_(std::max<size_t>(1, chunk)) {
  for (size_t lane = 0; lane < lanes; ++lane) {
    try {
      threads_.emplace_back(&BatchWorkers::Run, this, lane);
    } catch (const std::system_error&) {
      break;
    }
  }
}

BatchWorkers::~BatchWorkers() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  work_ready_.notify_all();
  for (std::thread& thread : threads_) thread.join();
}

uint64_t BatchWorkers::Submit(size_t items, Work work) {
  const uint64_t ticket = next_ticket_++;  // only the caller's thread submits
  if (threads_.empty()) {
    if (items != 0) work(0, 0, items);
    return ticket;
  }
  if (items == 0) return ticket;
  auto batch = std::make_shared<Batch>();
  batch->ticket = ticket;
  batch->items = items;
  batch->work = std::move(work);
  {
    std::lock_guard<std::mutex> lock(mu_);
    unfinished_[ticket] = items;
    queue_.push_back(std::move(batch));
    waiting_items_ += items;
  }
  work_ready_.notify_all();
  return ticket;
}

bool BatchWorkers::Finished(uint64_t ticket) {
  std::lock_guard<std::mutex> lock(mu_);
  return !unfinished_.contains(ticket);
}

void BatchWorkers::Wait(uint64_t ticket) {
  std::unique_lock<std::mutex> lock(mu_);
  batch_done_.wait(lock, [&] { return !unfinished_.contains(ticket); });
}

void BatchWorkers::Wait(uint64_t ticket, size_t lane) {
  std::unique_lock<std::mutex> lock(mu_);
  while (unfinished_.contains(ticket)) {
    if (queue_.empty()) {
      batch_done_.wait(lock, [&] { return !unfinished_.contains(ticket) || !queue_.empty(); });
    } else {
      RunChunk(lock, lane);
    }
  }
}

void BatchWorkers::Help(size_t lane, size_t leave) {
  if (threads_.empty()) return;  // Submit ran everything
  std::unique_lock<std::mutex> lock(mu_);
  while (waiting_items_ > leave) RunChunk(lock, lane);
}

void BatchWorkers::Run(size_t lane) {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    work_ready_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (stopping_) return;
    RunChunk(lock, lane);
  }
}

void BatchWorkers::RunChunk(std::unique_lock<std::mutex>& lock, size_t lane) {
  std::shared_ptr<Batch> batch = queue_.front();
  const size_t begin = batch->next;
  const size_t end = std::min(batch->items, begin + chunk_);
  batch->next = end;
  waiting_items_ -= end - begin;
  if (end == batch->items) queue_.pop_front();
  lock.unlock();
  batch->work(lane, begin, end);
  lock.lock();
  size_t& left = unfinished_[batch->ticket];
  left -= end - begin;
  if (left == 0) {
    unfinished_.erase(batch->ticket);
    batch_done_.notify_all();
  }
}

}  // namespace perftk::unwind
