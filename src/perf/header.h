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
#include "perf/attr.h"
#include "base/bytes.h"
#include "perf/record.h"
#include "perf/sample.h"

namespace perftk {

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
  absl::StatusOr<size_t> IndexOf(const Record& record) const;
  // The timestamp of a record: the TIME of a sample, or of the sample_id
  // trailer of a kernel record; nullopt when it carries none.
  std::optional<uint64_t> TimeOf(const Record& record) const;
  // The same with the id already known (e.g. of a decoded sample).
  std::optional<size_t> IndexOfId(uint64_t id) const;

 private:
  std::vector<EventAttr> attrs_;
  std::vector<SampleFormat> formats_;
  absl::flat_hash_map<uint64_t, size_t> index_by_id_;
};

struct Header {
  DataLayout layout = DataLayout::kFile;
  bool cross_endian = false;  // the input was written in the other byte order
  EventList events;
  FeatureSet features;
};

}  // namespace perftk

#endif  // PERFTK_PERF_HEADER_H_
