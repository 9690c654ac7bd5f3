// A record of a perf.data stream as a view over its native-order bytes, plus
// typed views for the record types tools look inside.
//
// A Record does not own its bytes: it is valid until the reader that gave it
// reads the next record (see PerfDataReader). Copy it into OwnedRecord to
// keep it longer. Typed views are made with `From(record)`, which checks
// that the record is large enough for every fixed field the view reads.
#ifndef PERFTK_PERF_RECORD_H_
#define PERFTK_PERF_RECORD_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "perf/bytes.h"
#include "perftk/perf_abi.h"

namespace perftk {

inline constexpr size_t kRecordHeaderSize = 8;

class Record {
 public:
  Record() = default;
  // `bytes` holds the whole record, header included; `payload` is the data
  // that follows AUXTRACE and HEADER_TRACING_DATA records outside header.size.
  Record(Bytes bytes, uint64_t file_offset, Bytes trailing_payload = {})
      : bytes_(bytes), payload_(trailing_payload), file_offset_(file_offset) {}

  uint32_t type() const { return Load<uint32_t>(bytes_.data()); }
  uint16_t misc() const { return Load<uint16_t>(bytes_.data() + 4); }
  uint16_t size() const { return Load<uint16_t>(bytes_.data() + 6); }
  uint16_t cpumode() const { return misc() & PERF_RECORD_MISC_CPUMODE_MASK; }

  Bytes bytes() const { return bytes_; }
  Bytes body() const { return bytes_.subspan(kRecordHeaderSize); }
  Bytes trailing_payload() const { return payload_; }
  uint64_t file_offset() const { return file_offset_; }

  // Records perf writes in pipe mode to carry what file mode keeps in its
  // header: HEADER_ATTR, HEADER_EVENT_TYPE, HEADER_TRACING_DATA,
  // HEADER_BUILD_ID and HEADER_FEATURE.
  bool is_header_record() const;

 private:
  Bytes bytes_;
  Bytes payload_;
  uint64_t file_offset_ = 0;
};

// A record that owns a copy of its bytes (for queues and synthesized records).
class OwnedRecord {
 public:
  OwnedRecord() = default;
  explicit OwnedRecord(const Record& record);
  OwnedRecord(std::vector<std::byte> bytes, std::vector<std::byte> trailing_payload,
              uint64_t file_offset);

  Record view() const { return Record(bytes_, file_offset_, payload_); }
  std::vector<std::byte>& mutable_bytes() { return bytes_; }

 private:
  std::vector<std::byte> bytes_;
  std::vector<std::byte> payload_;
  uint64_t file_offset_ = 0;
};

// Builds a record from a header and a body; sets header.size (which must fit
// in 16 bits: returns an error otherwise).
absl::StatusOr<std::vector<std::byte>> MakeRecordBytes(uint32_t type, uint16_t misc, Bytes body);

// The kernel's or perf's name of a record type, e.g. "MMAP2", "FINISHED_ROUND";
// "UNKNOWN(n)" for others.
std::string RecordTypeName(uint32_t type);

// Base of the typed views: bounds-checked field reads at fixed offsets.
class RecordView {
 public:
  const Record& record() const { return record_; }

 protected:
  explicit RecordView(const Record& record) : record_(record) {}
  static absl::Status CheckSize(const Record& record, size_t min_size, const char* what);
  uint16_t U16(size_t offset) const { return Load<uint16_t>(record_.bytes().data() + offset); }
  uint32_t U32(size_t offset) const { return Load<uint32_t>(record_.bytes().data() + offset); }
  uint64_t U64(size_t offset) const { return Load<uint64_t>(record_.bytes().data() + offset); }
  // The NUL-terminated string starting at offset, cut at `end` (exclusive).
  absl::string_view String(size_t offset, size_t end) const;

 private:
  Record record_;
};

class MmapRecord : public RecordView {
 public:
  static absl::StatusOr<MmapRecord> From(const Record& record);
  uint32_t pid() const { return U32(8); }
  uint32_t tid() const { return U32(12); }
  uint64_t start() const { return U64(16); }
  uint64_t len() const { return U64(24); }
  uint64_t pgoff() const { return U64(32); }
  absl::string_view filename() const { return String(40, record().size()); }
  static constexpr size_t kStartOffset = 16;
  static constexpr size_t kPgoffOffset = 32;

 private:
  using RecordView::RecordView;
};

class Mmap2Record : public RecordView {
 public:
  static absl::StatusOr<Mmap2Record> From(const Record& record);
  uint32_t pid() const { return U32(8); }
  uint32_t tid() const { return U32(12); }
  uint64_t start() const { return U64(16); }
  uint64_t len() const { return U64(24); }
  uint64_t pgoff() const { return U64(32); }
  bool has_build_id() const { return record().misc() & PERF_RECORD_MISC_MMAP_BUILD_ID; }
  uint32_t maj() const { return U32(40); }
  uint32_t min() const { return U32(44); }
  uint64_t ino() const { return U64(48); }
  uint64_t ino_generation() const { return U64(56); }
  // Valid when has_build_id(): at most 20 bytes.
  Bytes build_id() const;
  uint32_t prot() const { return U32(64); }
  uint32_t flags() const { return U32(68); }
  absl::string_view filename() const { return String(72, record().size()); }
  static constexpr size_t kStartOffset = 16;
  static constexpr size_t kPgoffOffset = 32;

 private:
  using RecordView::RecordView;
};

class CommRecord : public RecordView {
 public:
  static absl::StatusOr<CommRecord> From(const Record& record);
  uint32_t pid() const { return U32(8); }
  uint32_t tid() const { return U32(12); }
  bool is_exec() const { return record().misc() & PERF_RECORD_MISC_COMM_EXEC; }
  absl::string_view comm() const { return String(16, record().size()); }

 private:
  using RecordView::RecordView;
};

// PERF_RECORD_FORK and PERF_RECORD_EXIT share one layout.
class ForkRecord : public RecordView {
 public:
  static absl::StatusOr<ForkRecord> From(const Record& record);
  uint32_t pid() const { return U32(8); }
  uint32_t ppid() const { return U32(12); }
  uint32_t tid() const { return U32(16); }
  uint32_t ptid() const { return U32(20); }
  uint64_t time() const { return U64(24); }

 private:
  using RecordView::RecordView;
};

class KsymbolRecord : public RecordView {
 public:
  static absl::StatusOr<KsymbolRecord> From(const Record& record);
  uint64_t addr() const { return U64(8); }
  uint32_t len() const { return U32(16); }
  uint16_t ksym_type() const { return U16(20); }
  uint16_t flags() const { return U16(22); }  // bit 0: unregister
  absl::string_view name() const { return String(24, record().size()); }
  static constexpr size_t kAddrOffset = 8;

 private:
  using RecordView::RecordView;
};

class TextPokeRecord : public RecordView {
 public:
  static absl::StatusOr<TextPokeRecord> From(const Record& record);
  uint64_t addr() const { return U64(8); }
  uint16_t old_len() const { return U16(16); }
  uint16_t new_len() const { return U16(18); }

 private:
  using RecordView::RecordView;
};

class AuxRecord : public RecordView {
 public:
  static absl::StatusOr<AuxRecord> From(const Record& record);
  uint64_t aux_offset() const { return U64(8); }
  uint64_t aux_size() const { return U64(16); }
  uint64_t flags() const { return U64(24); }

 private:
  using RecordView::RecordView;
};

class AuxtraceRecord : public RecordView {
 public:
  static absl::StatusOr<AuxtraceRecord> From(const Record& record);
  uint64_t payload_size() const { return U64(8); }
  uint64_t offset() const { return U64(16); }
  uint64_t reference() const { return U64(24); }
  uint32_t idx() const { return U32(32); }
  uint32_t tid() const { return U32(36); }
  uint32_t cpu() const { return U32(40); }

 private:
  using RecordView::RecordView;
};

class AuxtraceInfoRecord : public RecordView {
 public:
  static absl::StatusOr<AuxtraceInfoRecord> From(const Record& record);
  uint32_t auxtrace_type() const { return U32(8); }
  // The private u64 words that follow (layout depends on auxtrace_type).
  std::vector<uint64_t> priv() const;

 private:
  using RecordView::RecordView;
};

class HeaderAttrRecord : public RecordView {
 public:
  static absl::StatusOr<HeaderAttrRecord> From(const Record& record);
  Bytes attr_bytes() const;
  std::vector<uint64_t> ids() const;

 private:
  using RecordView::RecordView;
};

class HeaderFeatureRecord : public RecordView {
 public:
  static absl::StatusOr<HeaderFeatureRecord> From(const Record& record);
  uint64_t feature() const { return U64(8); }
  Bytes data() const { return record().bytes().subspan(16); }

 private:
  using RecordView::RecordView;
};

class SwitchRecord : public RecordView {
 public:
  static absl::StatusOr<SwitchRecord> From(const Record& record);
  bool is_out() const { return record().misc() & PERF_RECORD_MISC_SWITCH_OUT; }
  // Only for SWITCH_CPU_WIDE: the process switched to (in) or from (out).
  uint32_t next_prev_pid() const { return U32(8); }
  uint32_t next_prev_tid() const { return U32(12); }

 private:
  using RecordView::RecordView;
};

}  // namespace perftk

#endif  // PERFTK_PERF_RECORD_H_
