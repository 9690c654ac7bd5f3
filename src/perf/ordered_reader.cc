#include "perf/ordered_reader.h"

namespace perftk {

void OrderedReader::Release(uint64_t limit) {
  while (!queue_.empty() && queue_.top().time <= limit) {
    // priority_queue::top is const; the element is popped right after.
    Queued& top = const_cast<Queued&>(queue_.top());
    queued_bytes_ -= top.record.view().bytes().size() + top.record.view().trailing_payload().size();
    last_released_ = top.time;
    any_released_ = true;
    ready_.push_back(std::move(top.record));
    queue_.pop();
  }
}

void OrderedReader::ReleaseHalf() {
  size_t target = queue_.size() / 2;
  while (queue_.size() > target) Release(queue_.top().time);
}

absl::StatusOr<std::optional<Record>> OrderedReader::Next() {
  while (true) {
    if (!ready_.empty()) {
      current_ = std::move(ready_.front());
      ready_.pop_front();
      return std::optional<Record>(current_.view());
    }
    if (at_end_) return std::optional<Record>();

    absl::StatusOr<std::optional<Record>> record = reader_.Next();
    if (!record.ok()) return record.status();
    if (!*record) {
      at_end_ = true;
      Release(UINT64_MAX);
      continue;
    }
    const Record& r = **record;
    if (r.type() == PERF_RECORD_FINISHED_ROUND) {
      Release(release_limit_);
      release_limit_ = max_time_;
      ready_.emplace_back(r);
      continue;
    }
    std::optional<uint64_t> time = reader_.header().events.TimeOf(r);
    if (!time) return record;  // untimed records go straight through
    if (any_released_ && *time < last_released_) ++out_of_order_;
    max_time_ = std::max(max_time_, *time);
    queued_bytes_ += r.bytes().size() + r.trailing_payload().size();
    queue_.push(Queued{*time, sequence_++, OwnedRecord(r)});
    if (queued_bytes_ > max_queued_bytes_) ReleaseHalf();
  }
}

}  // namespace perftk
