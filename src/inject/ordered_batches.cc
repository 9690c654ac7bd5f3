#include "inject/ordered_batches.h"

#include <algorithm>
#include <system_error>
#include <utility>

namespace perftk {

OrderedBatches::OrderedBatches(const Options& options)
    : jobs_(std::max<size_t>(1, options.jobs)),
      chunk_(std::max<size_t>(1, options.chunk)),
      max_in_flight_(options.max_in_flight),
      caller_leaves_(options.caller_leaves) {
  threads_.reserve(jobs_ - 1);
  for (size_t lane = 0; lane + 1 < jobs_; ++lane) {
    try {
      threads_.emplace_back(&OrderedBatches::RunThread, this, lane);
    } catch (const std::system_error&) {
      break;  // thread or memory limits: the threads that started and the caller
    }
  }
}

OrderedBatches::~OrderedBatches() { Abandon(); }

void OrderedBatches::Abandon() {
  {
    base::MutexLock lock(mu_);
    stopping_ = true;
  }
  work_ready_.NotifyAll();
  for (std::thread& thread : threads_) thread.join();
  threads_.clear();
  base::MutexLock lock(mu_);
  queue_.clear();  // the work closures go after the last call of them
  left_.clear();
  waiting_items_ = 0;
  next_to_write_ = next_ticket_;
  if (failed_.ok()) failed_ = absl::CancelledError("the batches were abandoned");
}

absl::StatusOr<uint64_t> OrderedBatches::Submit(size_t items, Work work, Writer write) {
  if (!failed_.ok()) return failed_;
  const uint64_t ticket = next_ticket_++;
  {
    base::MutexLock lock(mu_);
    left_.push_back(items);
    if (items != 0) {
      queue_.push_back(std::make_shared<const Batch>(Batch{ticket, items, std::move(work)}));
      waiting_items_ += items;
    }
  }
  if (items != 0 && !threads_.empty()) work_ready_.NotifyAll();
  Help(threads_.empty() ? 0 : caller_leaves_);
  if (absl::Status s = WriteFinished(write, max_in_flight_); !s.ok()) return s;
  return ticket;
}

absl::Status OrderedBatches::Drain(Writer write) {
  if (!failed_.ok()) return failed_;
  return WriteFinished(write, 0);
}

absl::Status OrderedBatches::WriteFinished(Writer write, size_t keep) {
  while (next_to_write_ < next_ticket_) {
    const uint64_t ticket = next_to_write_;
    if (in_flight() > keep) {
      WaitFor(ticket);
    } else if (!Finished(ticket)) {
      break;
    }
    {
      base::MutexLock lock(mu_);
      left_.pop_front();
      ++left_base_;
    }
    ++next_to_write_;
    if (absl::Status s = write(ticket); !s.ok()) {
      failed_ = s;
      return s;
    }
  }
  return absl::OkStatus();
}

size_t& OrderedBatches::Left(uint64_t ticket) { return left_[ticket - left_base_]; }

bool OrderedBatches::Finished(uint64_t ticket) {
  base::MutexLock lock(mu_);
  return Left(ticket) == 0;
}

void OrderedBatches::WaitFor(uint64_t ticket) {
  base::MutexLock lock(mu_);
  while (Left(ticket) != 0) {
    if (queue_.empty()) {
      batch_done_.Wait(mu_);
    } else {
      RunChunk(caller_lane());
    }
  }
}

void OrderedBatches::Help(size_t leave) {
  base::MutexLock lock(mu_);
  while (waiting_items_ > leave) RunChunk(caller_lane());
}

void OrderedBatches::RunThread(size_t lane) {
  base::MutexLock lock(mu_);
  while (true) {
    while (!stopping_ && queue_.empty()) work_ready_.Wait(mu_);
    if (stopping_) return;
    RunChunk(lane);
  }
}

void OrderedBatches::RunChunk(size_t lane) {
  std::shared_ptr<const Batch> batch = queue_.front();
  const size_t begin = front_next_;
  const size_t end = std::min(batch->items, begin + chunk_);
  waiting_items_ -= end - begin;
  if (end == batch->items) {
    queue_.pop_front();
    front_next_ = 0;
  } else {
    front_next_ = end;
  }
  mu_.Unlock();
  batch->work(lane, begin, end);
  mu_.Lock();
  size_t& left = Left(batch->ticket);
  left -= end - begin;
  if (left == 0) batch_done_.NotifyAll();
}

}  // namespace perftk
