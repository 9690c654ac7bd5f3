#include "perf/ordered_reader.h"

#include <algorithm>
#include <cstring>

namespace perftk::perf {

Record OrderedReader::ViewOf(const Queued& queued) const {
  if (!queued.copied()) {
    return Record(base::Bytes(queued.view, queued.size), queued.file_offset,
                  base::Bytes(queued.view_payload, queued.payload_size));
  }
  const std::byte* at = bytes_.data() + queued.at;
  return Record(base::Bytes(at, queued.size), queued.file_offset,
                base::Bytes(at + queued.size, queued.payload_size));
}

void OrderedReader::Enqueue(const Record& record, uint64_t time) {
  const base::Bytes bytes = record.bytes();
  const base::Bytes payload = record.trailing_payload();
  if (queue_.size() > released_end_ && time < queue_.back().time)
    run_starts_.push_back(queue_.size());
  queued_bytes_ += bytes.size() + payload.size();
  // Filled in place: a Queued built aside and copied in was read back in
  // 16-byte pieces over its 8-byte stores, a store-forwarding stall each.
  Queued& queued = queue_.emplace_back();
  queued.time = time;
  queued.file_offset = record.file_offset();
  queued.size = bytes.size();
  queued.payload_size = payload.size();
  if (reader_.IsMappedView(record)) {
    queued.at = 0;
    queued.view = bytes.data();
    queued.view_payload = payload.data();
    return;
  }
  const size_t at = bytes_used_;
  // Each record starts 8-byte aligned, as in the file.
  bytes_used_ += base::AlignUp(bytes.size() + payload.size(), 8);
  if (bytes_used_ > bytes_.size()) bytes_.resize(std::max(bytes_used_, 2 * bytes_.size()));
  if (!bytes.empty()) std::memcpy(bytes_.data() + at, bytes.data(), bytes.size());
  if (!payload.empty())
    std::memcpy(bytes_.data() + at + bytes.size(), payload.data(), payload.size());
  queued.at = at;
}

void OrderedReader::SortQueue() {
  if (run_starts_.empty()) return;
  // The unreleased part is a few runs in order (typically one per CPU
  // buffer of a round): merge neighbours until one is left. inplace_merge
  // is stable, so records of equal time keep their reading order.
  std::vector<size_t>& bounds = run_starts_;
  bounds.insert(bounds.begin(), released_end_);
  bounds.push_back(queue_.size());
  auto at = [this](size_t i) { return queue_.begin() + static_cast<ptrdiff_t>(i); };
  auto earlier = [](const Queued& a, const Queued& b) { return a.time < b.time; };
  while (bounds.size() > 2) {
    size_t kept = 0;
    size_t i = 0;
    for (; i + 2 < bounds.size(); i += 2) {
      std::inplace_merge(at(bounds[i]), at(bounds[i + 1]), at(bounds[i + 2]), earlier);
      bounds[kept++] = bounds[i];
    }
    // An odd run out stays as it is.
    for (; i < bounds.size(); ++i) bounds[kept++] = bounds[i];
    bounds.resize(kept);
  }
  bounds.clear();
}

void OrderedReader::Release(uint64_t limit) {
  SortQueue();
  auto end = std::upper_bound(queue_.begin() + static_cast<ptrdiff_t>(released_end_), queue_.end(),
                              limit, [](uint64_t t, const Queued& q) { return t < q.time; });
  const size_t new_end = static_cast<size_t>(end - queue_.begin());
  if (new_end == released_end_) return;
  for (size_t i = released_end_; i < new_end; ++i) {
    queued_bytes_ -= queue_[i].size + queue_[i].payload_size;
  }
  last_released_ = queue_[new_end - 1].time;
  any_released_ = true;
  released_end_ = new_end;
}

void OrderedReader::ReleaseHalf() {
  // At least the older half goes, with every record as old as the last of it.
  SortQueue();
  const size_t queued = queue_.size() - released_end_;
  if (queued == 0) return;
  const size_t at_least = queued - queued / 2;
  Release(queue_[released_end_ + at_least - 1].time);
}

void OrderedReader::Compact() {
  if (next_ == 0 || next_ != released_end_) return;
  if (next_ == queue_.size()) {
    // run_starts_ is empty: nothing is queued.
    queue_.clear();
    bytes_used_ = 0;
    next_ = released_end_ = 0;
    return;
  }
  // Moving the rest costs about what handing out the dropped part did.
  if (next_ < queue_.size() - next_) return;
  queue_.erase(queue_.begin(), queue_.begin() + static_cast<ptrdiff_t>(next_));
  for (size_t& start : run_starts_) start -= next_;
  next_ = released_end_ = 0;
  size_t used = 0;
  size_t first = SIZE_MAX;
  for (const Queued& q : queue_) {
    if (!q.copied()) continue;
    used += base::AlignUp(q.size + q.payload_size, 8);
    first = std::min(first, q.at);
  }
  if (used == 0) {
    bytes_used_ = 0;
    return;
  }
  if (used == bytes_used_ - first) {
    // The rest is one block without holes (the usual case: the records
    // of the latest round): move it down in one piece.
    std::memmove(bytes_.data(), bytes_.data() + first, used);
    for (Queued& q : queue_) {
      if (q.copied()) q.at -= first;
    }
    bytes_used_ = used;
    return;
  }
  // Else (a record held back from an older round): copy them over one by
  // one, in queue order, so no hole is kept.
  if (spare_.size() < used) spare_.resize(std::max(used, bytes_.size()));
  size_t at = 0;
  for (Queued& q : queue_) {
    if (!q.copied()) continue;
    const size_t n = base::AlignUp(q.size + q.payload_size, 8);
    std::memcpy(spare_.data() + at, bytes_.data() + q.at, n);
    q.at = at;
    at += n;
  }
  bytes_.swap(spare_);
  bytes_used_ = used;
}

absl::StatusOr<std::optional<Record>> OrderedReader::Next() {
  while (true) {
    if (next_ < released_end_) return std::optional<Record>(ViewOf(queue_[next_++]));
    if (round_waiting_) {
      round_waiting_ = false;
      return std::optional<Record>(Record(round_, round_offset_));
    }
    if (at_end_) return std::optional<Record>();
    Compact();

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
      round_.assign(r.bytes().begin(), r.bytes().end());
      round_offset_ = r.file_offset();
      round_waiting_ = true;
      continue;
    }
    std::optional<uint64_t> time = reader_.header().events.TimeOf(r);
    if (!time) return record;  // untimed records go straight through
    if (any_released_ && *time < last_released_) ++out_of_order_;
    max_time_ = std::max(max_time_, *time);
    Enqueue(r, *time);
    if (queued_bytes_ > max_queued_bytes_) ReleaseHalf();
  }
}

}  // namespace perftk::perf
