#include "perf/header.h"

#include "absl/status/status.h"
#include "absl/strings/str_format.h"

namespace perftk {

void EventList::Add(EventAttr attr) {
  attrs_.push_back(std::move(attr));
  Reindex();
}

void EventList::Reindex() {
  formats_.clear();
  index_by_id_.clear();
  for (size_t i = 0; i < attrs_.size(); ++i) {
    formats_.push_back(SampleFormat::Of(attrs_[i]));
    for (uint64_t id : attrs_[i].ids()) index_by_id_.emplace(id, i);
  }
}

std::optional<size_t> EventList::IndexOfId(uint64_t id) const {
  auto it = index_by_id_.find(id);
  if (it == index_by_id_.end()) return std::nullopt;
  return it->second;
}

std::optional<uint64_t> EventList::TimeOf(const Record& record) const {
  if (attrs_.empty() || record.type() >= PERF_RECORD_USER_TYPE_START) return std::nullopt;
  absl::StatusOr<size_t> index = IndexOf(record);
  if (!index.ok()) return std::nullopt;
  const SampleFormat& f = formats_[*index];
  if (!f.has(PERF_SAMPLE_TIME)) return std::nullopt;
  Bytes bytes = record.bytes();
  size_t offset;
  if (record.type() == PERF_RECORD_SAMPLE) {
    offset = kRecordHeaderSize;
    for (uint64_t bit : {PERF_SAMPLE_IDENTIFIER, PERF_SAMPLE_IP, PERF_SAMPLE_TID}) {
      if (f.has(bit)) offset += 8;
    }
  } else {
    size_t trailer = f.trailer_size();
    if (trailer == 0 || trailer + kRecordHeaderSize > bytes.size()) return std::nullopt;
    offset = bytes.size() - trailer + (f.has(PERF_SAMPLE_TID) ? 8 : 0);
  }
  if (offset + 8 > bytes.size()) return std::nullopt;
  return Load<uint64_t>(bytes.data() + offset);
}

absl::StatusOr<size_t> EventList::IndexOf(const Record& record) const {
  if (attrs_.empty()) return absl::FailedPreconditionError("the recording has no events");
  if (attrs_.size() == 1) return 0;
  const SampleFormat& first = formats_[0];
  std::optional<size_t> offset;
  Bytes bytes = record.bytes();
  if (record.type() == PERF_RECORD_SAMPLE) {
    std::optional<size_t> in_sample = first.id_offset_in_sample();
    if (in_sample) offset = kRecordHeaderSize + *in_sample;
  } else if (record.type() < PERF_RECORD_USER_TYPE_START) {
    std::optional<size_t> from_end = first.id_offset_from_end();
    if (from_end && *from_end <= bytes.size()) offset = bytes.size() - *from_end;
  }
  if (!offset) return 0;  // perf's rule too: without ids, the first event
  if (*offset + 8 > bytes.size()) {
    return absl::DataLossError(absl::StrFormat("%s record of %u bytes is too short for its event id",
                                               RecordTypeName(record.type()), bytes.size()));
  }
  uint64_t id = Load<uint64_t>(bytes.data() + *offset);
  // perf synthesizes records (COMM, MMAP of what ran before it) with a zeroed
  // sample_id; like perf, take them as the first event's.
  if (id == 0) return 0;
  std::optional<size_t> index = IndexOfId(id);
  if (!index) {
    return absl::DataLossError(absl::StrFormat("%s record names event id %u, which no attr has",
                                               RecordTypeName(record.type()), id));
  }
  return *index;
}

}  // namespace perftk
