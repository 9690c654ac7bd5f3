// Encoders for the records tools write, the counterparts of record.h's
// views: MMAP2, and the records that carry, in a pipe, what a file keeps in
// its header: HEADER_ATTR (an attr and its ids), HEADER_FEATURE (a feature
// section), HEADER_TRACING_DATA (its data follows the record) and the
// EVENT_UPDATE record that names an event. Each returns the record's bytes,
// or an error when the record would not fit the 16-bit size field.
#ifndef PERFTK_PERF_RECORD_ENCODERS_H_
#define PERFTK_PERF_RECORD_ENCODERS_H_

#include <cstdint>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "base/bytes.h"
#include "perf/attr.h"

namespace perftk::perf {

// The fields of an MMAP2 that names its file by device and inode.
struct Mmap2Fields {
  uint32_t pid = 0, tid = 0;
  uint64_t start = 0, len = 0, pgoff = 0;
  uint32_t maj = 0, min = 0;
  uint64_t ino = 0, ino_generation = 0;
  uint32_t prot = 0, flags = 0;
  absl::string_view filename;
};
// MMAP2: the fields, the file name NUL-terminated and zero-padded to 8
// bytes, then `sample_id` (the trailer EncodeSampleId makes, or empty).
absl::StatusOr<std::vector<std::byte>> EncodeMmap2(const Mmap2Fields& fields, uint16_t misc,
                                                   base::Bytes sample_id);

// HEADER_ATTR: the attr's bytes as they are (its own size), then its ids.
absl::StatusOr<std::vector<std::byte>> EncodeHeaderAttr(const EventAttr& attr, uint16_t misc = 0);

// HEADER_FEATURE: the feature number (u64), then the section's bytes.
absl::StatusOr<std::vector<std::byte>> EncodeHeaderFeature(uint64_t feature, base::Bytes section,
                                                           uint16_t misc = 0);

// HEADER_TRACING_DATA: pads `data` with zeros to a multiple of 8 bytes (the
// payload written right after the record) and returns the record, which
// holds the padded payload's size.
absl::StatusOr<std::vector<std::byte>> EncodeHeaderTracingData(std::vector<std::byte>& data,
                                                               uint16_t misc = 0);

// CALLCHAIN_DEFERRED (a copy of one, `bytes`, whose sample_id trailer is
// `trailer_size` bytes): each ip below PERF_CONTEXT_MAX replaced by what
// `map` returns for it, context markers kept; an error, `bytes`
// unchanged, when the record is shorter than its layout or nr runs past
// it.
absl::Status MapDeferredCallchainIps(std::vector<std::byte>& bytes, size_t trailer_size,
                                     absl::FunctionRef<uint64_t(uint64_t)> map);

// EVENT_UPDATE of type name (EventUpdateRecord::kName) for the event of
// sample id `id`: the name NUL-terminated and padded with zeros to 8 bytes.
absl::StatusOr<std::vector<std::byte>> EncodeEventUpdateName(uint64_t id, absl::string_view name,
                                                             uint16_t misc = 0);

}  // namespace perftk::perf

#endif  // PERFTK_PERF_RECORD_ENCODERS_H_
