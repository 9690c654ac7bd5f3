// What a recording says about itself before its records: its events (attrs
// with ids) and its feature sections, whatever the file or pipe layout.
#ifndef PERFTK_PERF_HEADER_H_
#define PERFTK_PERF_HEADER_H_

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "base/bytes.h"
#include "perf/attr.h"
#include "perf/record.h"
#include "perf/sample.h"

namespace perftk::perf {

enum class DataLayout { kFile, kPipe };

// Feature sections by feature bit, each as the bytes of its section, kept
// untouched unless a tool replaces it. Iterates in bit order.
using FeatureSet = std::map<int, std::vector<std::byte>>;

// The events of a recording, and which one a record belongs to.
//
// With one event every record is its; with several, the id in the record
// (IDENTIFIER, or ID at the position all events share) names it, as perf does.
class EventList {
 public:
  EventList() = default;
  explicit EventList(std::vector<EventAttr> attrs) : attrs_(std::move(attrs)) { Reindex(); }

  const std::vector<EventAttr>& attrs() const { return attrs_; }
  std::vector<EventAttr>& mutable_attrs() { return attrs_; }
  void Add(EventAttr attr);
  // Call after changing attrs through mutable_attrs().
  void Reindex();

  bool empty() const { return attrs_.empty(); }
  size_t size() const { return attrs_.size(); }
  const SampleFormat& format(size_t index) const { return formats_[index]; }

  // Index of the event a record (whole, native order) belongs to. Errors when
  // the record's id matches no event or the record is too short for its id.
  absl::StatusOr<size_t> IndexOf(const Record& record) const {
    if (attrs_.size() == 1) return size_t{0};  // the common case, without a call
    return IndexOfAmongSeveral(record);
  }
  // The timestamp of a record: the TIME of a sample, or of the sample_id
  // trailer of a kernel record; nullopt when it carries none.
  std::optional<uint64_t> TimeOf(const Record& record) const {
    // Inline around a plain bool, so the optional lives in registers: made
    // in memory by the callee, it costs a store-forwarding stall per record.
    uint64_t time = 0;
    if (!FindTime(record, time)) return std::nullopt;
    return time;
  }
  // The same with the id already known (e.g. of a decoded sample).
  std::optional<size_t> IndexOfId(uint64_t id) const;

 private:
  std::vector<EventAttr> attrs_;
  // Where an event's records keep their TIME, worked out once per attr:
  // counted from the start of a sample, from the end of a kernel record's
  // sample_id trailer. 0 when they carry none.
  struct TimePlace {
    size_t in_sample = 0;
    size_t from_end = 0;
  };
  // Whether a record names its event, and where: the first event's layout,
  // which all events share (perf's rule): the byte after the sample's
  // header, or back from the record's end. 0 when there is no id.
  size_t id_in_sample_ = 0;
  size_t id_from_end_ = 0;

  absl::StatusOr<size_t> IndexOfAmongSeveral(const Record& record) const;
  bool FindTime(const Record& record, uint64_t& time) const;
  // Where the record keeps its event id; nullopt when it has none.
  std::optional<size_t> IdOffset(const Record& record) const;
  // The index, without an error's message: nullopt for an unknown id or a
  // record too short for it.
  std::optional<size_t> FindIndex(const Record& record) const;

  std::vector<SampleFormat> formats_;
  std::vector<TimePlace> time_places_;
  absl::flat_hash_map<uint64_t, size_t> index_by_id_;
};

struct Header {
  DataLayout layout = DataLayout::kFile;
  bool cross_endian = false;  // the input was written in the other byte order
  EventList events;
  FeatureSet features;
};

}  // namespace perftk::perf

#endif  // PERFTK_PERF_HEADER_H_
