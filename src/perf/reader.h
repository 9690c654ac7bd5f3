// Reads a perf.data recording, in file or pipe layout and either byte order,
// and hands out its records one at a time, in the order they are stored.
//
//   auto reader = PerfDataReader::Open("perf.data");
//   while (true) {
//     absl::StatusOr<std::optional<Record>> record = (*reader)->Next();
//     if (!record.ok()) return record.status();  // names file, offset, type
//     if (!*record) break;                          // end of data
//     ...
//   }
//
// Every record is native-endian. PERF_RECORD_COMPRESSED records are
// decompressed and their records handed out instead. In pipe layout, the
// header records at the start of the stream (attrs, features, tracing data,
// build ids) are folded into header() before Open returns; header records
// that come later are folded in too and also handed out, so a writer can
// place them. A Record stays valid until the next call to Next.
#ifndef PERFTK_PERF_READER_H_
#define PERFTK_PERF_READER_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "perf/header.h"
#include "perf/input.h"
#include "perf/record.h"

namespace perftk::perf {

class Decompressor;

class PerfDataReader {
 public:
  // "-" reads standard input.
  static absl::StatusOr<std::unique_ptr<PerfDataReader>> Open(const std::string& path);
  static absl::StatusOr<std::unique_ptr<PerfDataReader>> FromInput(std::unique_ptr<Input> input);
  ~PerfDataReader();

  const Header& header() const { return header_; }
  const std::string& name() const { return input_->name(); }
  // Size of the input in bytes; 0 for a stream.
  uint64_t size() const { return input_->mapped().size(); }
  // Things that were wrong but could be stepped over (e.g. a feature section
  // pointing outside the file), one line each.
  const std::vector<std::string>& warnings() const { return warnings_; }

  absl::StatusOr<std::optional<Record>> Next();

  // Whether `record` (and its trailing payload) is a view of the mapped input
  // itself rather than of a buffer Next reuses (a streamed, byte-swapped or
  // decompressed record): such a view stays valid while this reader lives.
  // The pages of a mapped file behind the read position may leave memory,
  // but a read of them brings the file's bytes back.
  bool IsMappedView(const Record& record) const {
    return mapped_begin_ != 0 && IsMappedPart(record.bytes()) &&
           IsMappedPart(record.trailing_payload());
  }
  // Where the views a reader's user still reads begin (the file offset
  // `held` returns, UINT64_MAX for none): pages from there on stay in
  // memory when those behind the read position are given back, so those
  // views do not bring them back one by one. Asked at each release.
  void set_views_held_from(std::function<uint64_t()> held) { views_held_from_ = std::move(held); }

 private:
  explicit PerfDataReader(std::unique_ptr<Input> input);

  absl::Status ReadHeader();
  absl::Status ReadFileLayoutHeader(base::Bytes file_header);
  absl::Status ReadFileAttrs(uint64_t attr_size, uint64_t offset, uint64_t size);
  absl::Status ReadFeatureTable(const uint64_t bitmap[4], uint64_t table_offset);
  absl::Status ReadPipePreamble();

  // The common case without the general path's branches: a kernel record
  // (no trailing data, not compressed, not a header record) lying whole in
  // the data of a mapped native-endian input at `offset`. Returns its size,
  // or 0 to leave everything else, errors included, to NextStored. (A size,
  // not an optional Record: one made in memory by the callee and read back
  // by Next stalled store forwarding on every record.)
  uint16_t DirectRecordSize(uint64_t offset) const;
  absl::StatusOr<std::optional<Record>> NextStored();
  absl::StatusOr<std::optional<Record>> NextFromInput();
  absl::StatusOr<std::optional<Record>> NextDecompressed();
  absl::Status StartDecompressing(const Record& compressed);
  absl::Status Absorb(const Record& record);

  // An error that names the input, the offset and (if known) the record type.
  absl::Status Error(uint64_t offset, std::optional<uint32_t> type, absl::string_view what) const;
  void Warn(std::string message) { warnings_.push_back(std::move(message)); }

  std::unique_ptr<Input> input_;
  Header header_;
  std::vector<std::string> warnings_;
  uint64_t data_end_ = 0;  // file layout: end of the data section
  uint64_t released_before_ = 0;
  std::function<uint64_t()> views_held_from_;
  uint64_t direct_end_ = 0;  // where DirectRecordSize stops; 0 when it cannot serve
  // The mapped input's bytes as addresses; both 0 for a stream.
  uintptr_t mapped_begin_ = 0;
  uintptr_t mapped_end_ = 0;
  bool IsMappedPart(base::Bytes part) const {
    const auto at = reinterpret_cast<uintptr_t>(part.data());
    return part.empty() ||
           (at >= mapped_begin_ && at <= mapped_end_ && part.size() <= mapped_end_ - at);
  }
  std::deque<OwnedRecord> pending_;  // pipe preamble read ahead
  OwnedRecord current_pending_;

  std::vector<std::byte> scratch_;
  std::vector<std::byte> record_buffer_;
  std::vector<std::byte> payload_buffer_;

  std::unique_ptr<Decompressor> decompressor_;
  std::vector<std::byte> decompressed_;
  size_t decompressed_pos_ = 0;
  uint64_t compressed_offset_ = 0;
};

}  // namespace perftk::perf

#endif  // PERFTK_PERF_READER_H_
