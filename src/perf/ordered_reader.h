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
// Records of equal time keep the order they were read in.
//
// Cost: a record read from a mapped file is queued as a view of the mapping,
// not copied (PerfDataReader::IsMappedView); other records (a pipe, a
// decompressed or byte-swapped record) are copied into one reused byte
// buffer (no allocation per record once it has grown to about two rounds),
// and a
// queue is sorted only when a record arrived older than the one queued
// before it, so a recording already in order within its rounds (the common
// case) is never sorted, and a round of several ordered runs (one per CPU
// buffer) is merged in linear time per run.
#ifndef PERFTK_PERF_ORDERED_READER_H_
#define PERFTK_PERF_ORDERED_READER_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "perf/reader.h"
#include "perf/record.h"

namespace perftk::perf {

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
  // Records read and not yet released.
  size_t queued_records() const { return queue_.size() - released_end_; }

 private:
  // A queued record: when it happened, and where its bytes lie: in the
  // reader's mapped input (`view`, then `view_payload`), or else in bytes_
  // at `at` (its trailing payload right after them).
  struct Queued {
    uint64_t time;
    uint64_t file_offset;
    size_t at;
    size_t size;
    size_t payload_size;
    const std::byte* view = nullptr;
    const std::byte* view_payload = nullptr;

    bool copied() const { return view == nullptr; }
  };

  void Enqueue(const Record& record, uint64_t time);
  // Makes queued records with time <= limit ready, oldest first.
  void Release(uint64_t limit);
  void ReleaseHalf();
  void SortQueue();
  // Drops handed-out records from the front of queue_ (and their copies
  // from bytes_) once they are most of it. Only while nothing queued is
  // handed out.
  void Compact();
  Record ViewOf(const Queued& queued) const;

  PerfDataReader& reader_;
  size_t max_queued_bytes_;
  // queue_[next_, released_end_) are released and wait to be handed out;
  // queue_[released_end_, end) wait for a release. Entries before next_
  // were handed out.
  std::vector<Queued> queue_;
  size_t next_ = 0;
  size_t released_end_ = 0;
  // Where the unreleased part breaks order: each index starts a run of
  // records in (time, arrival) order. Empty when the whole part is in order.
  std::vector<size_t> run_starts_;
  std::vector<std::byte> bytes_;  // only grows; bytes_[0, bytes_used_) hold copied records
  size_t bytes_used_ = 0;
  std::vector<std::byte> spare_;  // what bytes_ is compacted into
  size_t queued_bytes_ = 0;       // record and payload bytes of unreleased records
  // A FINISHED_ROUND waiting for the records it released to be handed out.
  std::vector<std::byte> round_;
  uint64_t round_offset_ = 0;
  bool round_waiting_ = false;
  uint64_t max_time_ = 0;       // newest time seen so far
  uint64_t release_limit_ = 0;  // newest time of the previous round
  uint64_t last_released_ = 0;
  bool any_released_ = false;
  bool at_end_ = false;
  uint64_t out_of_order_ = 0;
};

}  // namespace perftk::perf

#endif  // PERFTK_PERF_ORDERED_READER_H_
