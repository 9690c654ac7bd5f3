#include "pipeline/ordered_batches.h"

#include <algorithm>
#include <system_error>
#include <utility>

#include "pipeline/tool.h"

namespace perftk::pipeline {

OrderedBatches::OrderedBatches(const Options& options)
    : jobs_(std::max<size_t>(1, options.jobs)),
      chunk_(std::max<size_t>(1, options.chunk)),
      max_in_flight_(options.max_in_flight),
      max_items_in_flight_(options.max_items_in_flight),
      caller_leaves_(options.caller_leaves),
      max_waiting_records_(options.max_waiting_records) {
  const size_t threads = options.caller_runs || jobs_ == 1 ? jobs_ - 1 : jobs_;
  threads_.reserve(threads);
  for (size_t lane = 0; lane < threads; ++lane) {
    try {
      threads_.emplace_back(&OrderedBatches::RunThread, this, lane);
    } catch (const std::system_error&) {
      break;  // thread or memory limits: the threads that started and the caller
    }
  }
  // The caller's lane is free unless its own thread started.
  caller_runs_ = threads_.size() < jobs_;
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
  waiting_.clear();
  waiting_items_ = 0;
  next_to_write_ = next_ticket_;
  items_.clear();
  items_in_flight_ = 0;
  if (failed_.ok()) failed_ = absl::CancelledError("the batches were abandoned");
}

absl::StatusOr<uint64_t> OrderedBatches::Submit(size_t items, Work work, Writer write,
                                                absl::Span<const uint64_t> after) {
  if (!failed_.ok()) return failed_;
  const uint64_t ticket = next_ticket_++;
  items_.push_back(items);
  items_in_flight_ += items;
  {
    base::MutexLock lock(mu_);
    left_.push_back(items);
    if (items != 0) {
      auto batch = std::make_shared<Batch>();
      batch->ticket = ticket;
      batch->items = items;
      batch->work = std::move(work);
      for (uint64_t earlier : after) {
        if (earlier < ticket && !HasRun(earlier)) batch->after.push_back(earlier);
      }
      queue_.push_back(Queued{std::move(batch), 0});
      waiting_items_ += items;
    }
  }
  if (items != 0 && !threads_.empty()) work_ready_.NotifyAll();
  Help(threads_.empty() ? 0 : caller_leaves_);
  if (absl::Status s = WriteFinished(write, max_in_flight_); !s.ok()) return s;
  return ticket;
}

absl::Status OrderedBatches::Pass(const perf::Record& record, RecordSink& out, Writer write) {
  if (!failed_.ok()) return failed_;
  if (absl::Status s = WriteFinished(write, max_in_flight_); !s.ok()) return s;
  if (in_flight() == 0) return out.Emit(record);
  waiting_.push_back(WaitingRecord{next_ticket_ - 1, perf::OwnedRecord(record), &out});
  return waiting_.size() > max_waiting_records_ ? Drain(write) : absl::OkStatus();
}

absl::Status OrderedBatches::Drain(Writer write) {
  if (!failed_.ok()) return failed_;
  return WriteFinished(write, 0);
}

absl::Status OrderedBatches::EmitRecordsBehind(uint64_t ticket) {
  while (!waiting_.empty() && waiting_.front().behind == ticket) {
    WaitingRecord& next = waiting_.front();
    absl::Status status = next.out->Emit(next.record.view());
    waiting_.pop_front();
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

absl::Status OrderedBatches::WriteFinished(Writer write, size_t keep) {
  while (next_to_write_ < next_ticket_) {
    const uint64_t ticket = next_to_write_;
    if (OverBound(keep)) {
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
    items_in_flight_ -= items_.front();
    items_.pop_front();
    absl::Status status = write(ticket);
    if (status.ok()) status = EmitRecordsBehind(ticket);
    if (!status.ok()) {
      failed_ = status;
      return status;
    }
  }
  return absl::OkStatus();
}

bool OrderedBatches::OverBound(size_t keep) const {
  if (in_flight() > keep) return true;
  // One batch may hold more items than the bound: it waits alone.
  return keep != 0 && in_flight() > 1 && items_in_flight_ > max_items_in_flight_;
}

size_t& OrderedBatches::Left(uint64_t ticket) { return left_[ticket - left_base_]; }

bool OrderedBatches::HasRun(uint64_t ticket) {
  return ticket < left_base_ || Left(ticket) == 0;  // written, or every item run
}

bool OrderedBatches::Finished(uint64_t ticket) {
  base::MutexLock lock(mu_);
  return HasRun(ticket);
}

bool OrderedBatches::MayRun(const Batch& batch) {
  for (uint64_t earlier : batch.after) {
    if (!HasRun(earlier)) return false;
  }
  return true;
}

void OrderedBatches::WaitFor(uint64_t ticket) {
  base::MutexLock lock(mu_);
  while (!HasRun(ticket)) {
    if (!caller_runs_ || !RunChunk(caller_lane())) batch_done_.Wait(mu_);
  }
}

void OrderedBatches::Help(size_t leave) {
  if (!caller_runs_) return;
  base::MutexLock lock(mu_);
  while (waiting_items_ > leave && RunChunk(caller_lane())) {
  }
}

void OrderedBatches::RunThread(size_t lane) {
  base::MutexLock lock(mu_);
  while (!stopping_) {
    if (!RunChunk(lane)) work_ready_.Wait(mu_);
  }
}

bool OrderedBatches::RunChunk(size_t lane) {
  auto queued = queue_.begin();
  while (queued != queue_.end() && !MayRun(*queued->batch)) ++queued;
  if (queued == queue_.end()) return false;
  std::shared_ptr<const Batch> batch = queued->batch;
  const size_t begin = queued->next;
  const size_t end = std::min(batch->items, begin + chunk_);
  waiting_items_ -= end - begin;
  if (end == batch->items) {
    queue_.erase(queued);
  } else {
    queued->next = end;
  }
  mu_.Unlock();
  batch->work(lane, begin, end);
  mu_.Lock();
  size_t& left = Left(batch->ticket);
  left -= end - begin;
  if (left == 0) {
    batch_done_.NotifyAll();
    // Batches that wait for this one may run now.
    if (!queue_.empty()) work_ready_.NotifyAll();
  }
  return true;
}

}  // namespace perftk::pipeline
