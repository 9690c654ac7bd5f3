#include "perf/header.h"

#include "absl/status/status.h"
#include "absl/strings/str_format.h"

namespace perftk::perf {

void EventList::Add(EventAttr attr) {
  attrs_.push_back(std::move(attr));
  Reindex();
}

void EventList::Reindex() {
  formats_.clear();
  time_places_.clear();
  index_by_id_.clear();
  for (size_t i = 0; i < attrs_.size(); ++i) {
    const SampleFormat& f = formats_.emplace_back(SampleFormat::Of(attrs_[i]));
    TimePlace& time = time_places_.emplace_back();
    if (f.has(PERF_SAMPLE_TIME)) {
      time.in_sample = kRecordHeaderSize;
      for (uint64_t bit : {PERF_SAMPLE_IDENTIFIER, PERF_SAMPLE_IP, PERF_SAMPLE_TID}) {
        if (f.has(bit)) time.in_sample += 8;
      }
      // The trailer holds TID, then TIME.
      if (f.trailer_size() != 0)
        time.from_end = f.trailer_size() - (f.has(PERF_SAMPLE_TID) ? 8 : 0);
    }
    for (uint64_t id : attrs_[i].ids()) index_by_id_.emplace(id, i);
  }
  id_in_sample_ = id_from_end_ = 0;
  if (!formats_.empty()) {
    if (std::optional<size_t> at = formats_[0].id_offset_in_sample()) {
      id_in_sample_ = kRecordHeaderSize + *at;
    }
    id_from_end_ = formats_[0].id_offset_from_end().value_or(0);
  }
}

std::optional<size_t> EventList::IndexOfId(uint64_t id) const {
  auto it = index_by_id_.find(id);
  if (it == index_by_id_.end()) return std::nullopt;
  return it->second;
}

bool EventList::FindTime(const Record& record, uint64_t& time) const {
  if (attrs_.empty() || record.type() >= PERF_RECORD_USER_TYPE_START) return false;
  size_t index = 0;
  if (attrs_.size() != 1) {
    std::optional<size_t> found = FindIndex(record);
    if (!found) return false;
    index = *found;
  }
  const TimePlace& place = time_places_[index];
  const base::Bytes bytes = record.bytes();
  size_t offset;
  if (record.type() == PERF_RECORD_SAMPLE) {
    offset = place.in_sample;
  } else {
    // The whole trailer must follow the record header.
    const size_t trailer = formats_[index].trailer_size();
    if (place.from_end == 0 || trailer + kRecordHeaderSize > bytes.size()) return false;
    offset = bytes.size() - place.from_end;
  }
  if (offset == 0 || offset + 8 > bytes.size()) return false;
  time = base::Load<uint64_t>(bytes.data() + offset);
  return true;
}

std::optional<size_t> EventList::IdOffset(const Record& record) const {
  if (record.type() == PERF_RECORD_SAMPLE) {
    if (id_in_sample_ != 0) return id_in_sample_;
  } else if (record.type() < PERF_RECORD_USER_TYPE_START && id_from_end_ != 0 &&
             id_from_end_ <= record.bytes().size()) {
    return record.bytes().size() - id_from_end_;
  }
  return std::nullopt;
}

std::optional<size_t> EventList::FindIndex(const Record& record) const {
  if (attrs_.size() == 1) return 0;
  if (attrs_.empty()) return std::nullopt;
  const std::optional<size_t> offset = IdOffset(record);
  if (!offset) return 0;  // perf's rule too: without ids, the first event
  if (*offset + 8 > record.bytes().size()) return std::nullopt;
  const uint64_t id = base::Load<uint64_t>(record.bytes().data() + *offset);
  // perf synthesizes records (COMM, MMAP of what ran before it) with a zeroed
  // sample_id; like perf, take them as the first event's.
  if (id == 0) return 0;
  return IndexOfId(id);
}

absl::StatusOr<size_t> EventList::IndexOfAmongSeveral(const Record& record) const {
  if (std::optional<size_t> index = FindIndex(record)) return *index;
  if (attrs_.empty()) return absl::FailedPreconditionError("the recording has no events");
  // FindIndex found an id offset, and either the record is too short for it
  // or no attr has the id there.
  const size_t offset = IdOffset(record).value_or(0);
  if (offset + 8 > record.bytes().size()) {
    return absl::DataLossError(
        absl::StrFormat("%s record of %u bytes is too short for its event id",
                        RecordTypeName(record.type()), record.bytes().size()));
  }
  return absl::DataLossError(absl::StrFormat("%s record names event id %u, which no attr has",
                                             RecordTypeName(record.type()),
                                             base::Load<uint64_t>(record.bytes().data() + offset)));
}

}  // namespace perftk::perf
