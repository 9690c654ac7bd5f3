// Hands out the records of a PerfDataReader in timestamp order, with the
// rule perf uses: a recording is written in rounds (one pass over the per-CPU
// buffers, closed by FINISHED_ROUND), and no record is older than the newest
// record of the round before the previous one. So at each FINISHED_ROUND the
// records up to the previous round's newest time are final and are handed
// out, sorted; the rest wait. Memory is bounded by about two rounds; a cap
// on queued bytes hands out the oldest half early (perf does the same), for
// files written without rounds (e.g. by perf inject).
//
// Records without a timestamp (perf's own records, kernel records without
// sample_id_all) are handed out as soon as they are read, as perf does.
// FINISHED_ROUND records are handed out after the records they released.
#ifndef PERFTK_PERF_ORDERED_READER_H_
#define PERFTK_PERF_ORDERED_READER_H_

#include <cstdint>
#include <deque>
#include <optional>
#include <queue>
#include <vector>

#include "absl/status/statusor.h"
#include "perf/reader.h"
#include "perf/record.h"

namespace perftk {

class OrderedReader {
 public:
  static constexpr size_t kDefaultMaxQueuedBytes = 256u << 20;

  explicit OrderedReader(PerfDataReader& reader, size_t max_queued_bytes = kDefaultMaxQueuedBytes)
      : reader_(reader), max_queued_bytes_(max_queued_bytes) {}

  const Header& header() const { return reader_.header(); }
  // Valid until the next call, like PerfDataReader::Next.
  absl::StatusOr<std::optional<Record>> Next();

  // Records older than something already handed out (a broken recording).
  uint64_t out_of_order_records() const { return out_of_order_; }
  size_t queued_records() const { return queue_.size(); }

 private:
  struct Queued {
    uint64_t time;
    uint64_t sequence;
    OwnedRecord record;
  };
  struct Later {
    bool operator()(const Queued& a, const Queued& b) const {
      return a.time != b.time ? a.time > b.time : a.sequence > b.sequence;
    }
  };

  // Moves queued records with time <= limit to ready_, oldest first.
  void Release(uint64_t limit);
  void ReleaseHalf();

  PerfDataReader& reader_;
  size_t max_queued_bytes_;
  std::priority_queue<Queued, std::vector<Queued>, Later> queue_;
  size_t queued_bytes_ = 0;
  std::deque<OwnedRecord> ready_;
  OwnedRecord current_;
  uint64_t sequence_ = 0;
  uint64_t max_time_ = 0;        // newest time seen so far
  uint64_t release_limit_ = 0;   // newest time of the previous round
  uint64_t last_released_ = 0;
  bool any_released_ = false;
  bool at_end_ = false;
  uint64_t out_of_order_ = 0;
};

}  // namespace perftk

#endif  // PERFTK_PERF_ORDERED_READER_H_
