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

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "base/bytes.h"
#include "perftk/perf_abi.h"

namespace perftk::perf {

inline constexpr size_t kRecordHeaderSize = 8;

class Record {
 public:
  Record() = default;
  // `bytes` holds the whole record, header included; `payload` is the data
  // that follows AUXTRACE and HEADER_TRACING_DATA records outside header.size.
  Record(base::Bytes bytes, uint64_t file_offset, base::Bytes trailing_payload = {})
      : bytes_(bytes), payload_(trailing_payload), file_offset_(file_offset) {}

  uint32_t type() const { return base::Load<uint32_t>(bytes_.data()); }
  uint16_t misc() const { return base::Load<uint16_t>(bytes_.data() + 4); }
  uint16_t size() const { return base::Load<uint16_t>(bytes_.data() + 6); }
  uint16_t cpumode() const { return misc() & PERF_RECORD_MISC_CPUMODE_MASK; }

  base::Bytes bytes() const { return bytes_; }
  base::Bytes body() const { return bytes_.subspan(kRecordHeaderSize); }
  base::Bytes trailing_payload() const { return payload_; }
  uint64_t file_offset() const { return file_offset_; }

  // Whether the bytes stay valid after the call that passes the record on,
  // as long as its reader lives (a view of a mapped input), so that a tool
  // may keep views of them; otherwise they are a buffer the next record
  // reuses. Only the pipeline that reads the record says so.
  bool lasting() const { return lasting_; }
  void set_lasting(bool lasting) { lasting_ = lasting; }

  // Records perf writes in pipe mode to carry what file mode keeps in its
  // header: HEADER_ATTR, HEADER_EVENT_TYPE, HEADER_TRACING_DATA,
  // HEADER_BUILD_ID and HEADER_FEATURE.
  bool is_header_record() const;

 private:
  base::Bytes bytes_;
  base::Bytes payload_;
  uint64_t file_offset_ = 0;
  bool lasting_ = false;
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

// InvalidArgument when a record of `type` and `size` bytes (header
// included) does not fit the header's 16-bit size field.
absl::Status CheckRecordSize(uint32_t type, size_t size);
// Builds a record from a header and a body; sets header.size (which must fit
// in 16 bits: returns an error otherwise).
absl::StatusOr<std::vector<std::byte>> MakeRecordBytes(uint32_t type, uint16_t misc,
                                                       base::Bytes body);
// Writes the header of a record built in place: `record` holds 8 bytes of
// room for it, then the body. InvalidArgument, as MakeRecordBytes, when the
// whole does not fit the 16-bit size field.
absl::Status SetRecordHeader(uint32_t type, uint16_t misc, std::vector<std::byte>& record);
absl::Status SetRecordHeader(uint32_t type, uint16_t misc, base::MutableBytes record);

// Calls `visit` with each record of `records`, records built end to end in
// native order (a buffer of MakeRecordBytes' results); the first error of
// `visit`, or InternalError if the last record is cut short.
absl::Status ForEachRecordIn(base::Bytes records,
                             absl::FunctionRef<absl::Status(const Record&)> visit);

// The kernel's or perf's name of a record type, e.g. "MMAP2", "FINISHED_ROUND";
// "UNKNOWN(n)" for others.
std::string RecordTypeName(uint32_t type);

// `status` as an error of `record`: "offset 0x1a2b: MMAP2 record: <message>",
// its code kept. The one shape every room gives a record's errors.
absl::Status RecordError(const Record& record, const absl::Status& status);

// Base of the typed views: bounds-checked field reads at fixed offsets.
class RecordView {
 public:
  const Record& record() const { return record_; }

 protected:
  explicit RecordView(const Record& record) : record_(record) {}
  static absl::Status CheckSize(const Record& record, size_t min_size, const char* what);
  uint16_t U16(size_t offset) const {
    return base::Load<uint16_t>(record_.bytes().data() + offset);
  }
  uint8_t U8(size_t offset) const { return static_cast<uint8_t>(record_.bytes()[offset]); }
  uint32_t U32(size_t offset) const {
    return base::Load<uint32_t>(record_.bytes().data() + offset);
  }
  uint64_t U64(size_t offset) const {
    return base::Load<uint64_t>(record_.bytes().data() + offset);
  }
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
  base::Bytes build_id() const;
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

// AUXTRACE's fixed part (header, size, offset, reference, idx, tid, cpu,
// reserved); its payload of payload_size() bytes follows in the file.
inline constexpr size_t kAuxtraceRecordSize = 48;

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
  base::Bytes attr_bytes() const;
  std::vector<uint64_t> ids() const;

 private:
  using RecordView::RecordView;
};

class HeaderFeatureRecord : public RecordView {
 public:
  static absl::StatusOr<HeaderFeatureRecord> From(const Record& record);
  uint64_t feature() const { return U64(8); }
  base::Bytes data() const { return record().bytes().subspan(16); }

 private:
  using RecordView::RecordView;
};

class LostRecord : public RecordView {
 public:
  static absl::StatusOr<LostRecord> From(const Record& record);
  uint64_t id() const { return U64(8); }
  uint64_t lost() const { return U64(16); }

 private:
  using RecordView::RecordView;
};

// PERF_RECORD_THROTTLE and PERF_RECORD_UNTHROTTLE.
class ThrottleRecord : public RecordView {
 public:
  static absl::StatusOr<ThrottleRecord> From(const Record& record);
  uint64_t time() const { return U64(8); }
  uint64_t id() const { return U64(16); }
  uint64_t stream_id() const { return U64(24); }

 private:
  using RecordView::RecordView;
};

// PERF_RECORD_READ: the read_format values follow pid and tid.
class ReadRecord : public RecordView {
 public:
  static absl::StatusOr<ReadRecord> From(const Record& record);
  uint32_t pid() const { return U32(8); }
  uint32_t tid() const { return U32(12); }
  base::Bytes values() const { return record().bytes().subspan(16); }

 private:
  using RecordView::RecordView;
};

class ItraceStartRecord : public RecordView {
 public:
  static absl::StatusOr<ItraceStartRecord> From(const Record& record);
  uint32_t pid() const { return U32(8); }
  uint32_t tid() const { return U32(12); }

 private:
  using RecordView::RecordView;
};

class LostSamplesRecord : public RecordView {
 public:
  static absl::StatusOr<LostSamplesRecord> From(const Record& record);
  uint64_t lost() const { return U64(8); }

 private:
  using RecordView::RecordView;
};

class NamespacesRecord : public RecordView {
 public:
  struct Entry {
    uint64_t dev = 0;
    uint64_t inode = 0;
  };
  // Checks that nr_namespaces entries fit in the record.
  static absl::StatusOr<NamespacesRecord> From(const Record& record);
  uint32_t pid() const { return U32(8); }
  uint32_t tid() const { return U32(12); }
  uint64_t nr_namespaces() const { return U64(16); }
  Entry entry(size_t i) const { return {U64(24 + 16 * i), U64(32 + 16 * i)}; }

 private:
  using RecordView::RecordView;
};

class BpfEventRecord : public RecordView {
 public:
  static absl::StatusOr<BpfEventRecord> From(const Record& record);
  uint16_t bpf_event_type() const { return U16(8); }
  uint16_t flags() const { return U16(10); }
  uint32_t id() const { return U32(12); }
  base::Bytes tag() const { return record().bytes().subspan(16, 8); }

 private:
  using RecordView::RecordView;
};

class CgroupRecord : public RecordView {
 public:
  static absl::StatusOr<CgroupRecord> From(const Record& record);
  uint64_t id() const { return U64(8); }
  absl::string_view path() const { return String(16, record().size()); }

 private:
  using RecordView::RecordView;
};

class AuxOutputHwIdRecord : public RecordView {
 public:
  static absl::StatusOr<AuxOutputHwIdRecord> From(const Record& record);
  uint64_t hw_id() const { return U64(8); }

 private:
  using RecordView::RecordView;
};

// PERF_RECORD_CALLCHAIN_DEFERRED: the user part of a callchain, stitched to
// samples by cookie. Checks that nr entries fit in the record.
class CallchainDeferredRecord : public RecordView {
 public:
  static absl::StatusOr<CallchainDeferredRecord> From(const Record& record);
  uint64_t cookie() const { return U64(8); }
  uint64_t nr() const { return U64(kNrOffset); }
  uint64_t ip(size_t i) const { return U64(IpOffset(i)); }
  // For rewriting the ips in place.
  static constexpr size_t kNrOffset = 16;
  static constexpr size_t kIpsOffset = 24;
  static constexpr size_t IpOffset(size_t i) { return kIpsOffset + 8 * i; }

 private:
  using RecordView::RecordView;
};

// PERF_RECORD_HEADER_BUILD_ID (and each entry of the build_id feature).
class HeaderBuildIdRecord : public RecordView {
 public:
  static absl::StatusOr<HeaderBuildIdRecord> From(const Record& record);
  int32_t pid() const { return static_cast<int32_t>(U32(8)); }
  // At most 20 bytes; the stored size when the record says so.
  base::Bytes build_id() const;
  absl::string_view filename() const { return String(36, record().size()); }

 private:
  using RecordView::RecordView;
};

class AuxtraceErrorRecord : public RecordView {
 public:
  static absl::StatusOr<AuxtraceErrorRecord> From(const Record& record);
  uint32_t error_type() const { return U32(8); }
  uint32_t code() const { return U32(12); }
  uint32_t cpu() const { return U32(16); }
  uint32_t pid() const { return U32(20); }
  uint32_t tid() const { return U32(24); }
  uint32_t fmt() const { return U32(28); }
  uint64_t ip() const { return U64(32); }
  uint64_t time() const { return U64(40); }
  absl::string_view message() const { return String(48, 48 + 64); }

 private:
  using RecordView::RecordView;
};

// PERF_RECORD_TIME_CONV: how to turn hardware timestamps into perf time.
class TimeConvRecord : public RecordView {
 public:
  static absl::StatusOr<TimeConvRecord> From(const Record& record);
  uint64_t time_shift() const { return U64(8); }
  uint64_t time_mult() const { return U64(16); }
  uint64_t time_zero() const { return U64(24); }
  // Present when the record is long enough (newer perf).
  uint64_t time_cycles() const { return record().size() >= 48 ? U64(32) : 0; }
  uint64_t time_mask() const { return record().size() >= 48 ? U64(40) : 0; }
  bool cap_user_time_zero() const { return record().size() >= 50 && U8(48) != 0; }
  bool cap_user_time_short() const { return record().size() >= 50 && U8(49) != 0; }

 private:
  using RecordView::RecordView;
};

// PERF_RECORD_ID_INDEX: which cpu and thread each sample id belongs to.
class IdIndexRecord : public RecordView {
 public:
  struct Entry {
    uint64_t id = 0;
    uint64_t idx = 0;
    uint64_t cpu = 0;
    uint64_t tid = 0;
  };
  // Checks that nr entries fit in the record.
  static absl::StatusOr<IdIndexRecord> From(const Record& record);
  uint64_t nr() const { return U64(8); }
  Entry entry(size_t i) const {
    return {U64(16 + 32 * i), U64(24 + 32 * i), U64(32 + 32 * i), U64(40 + 32 * i)};
  }

 private:
  using RecordView::RecordView;
};

// PERF_RECORD_THREAD_MAP: the threads of a `perf stat`/`record -t` session.
class ThreadMapRecord : public RecordView {
 public:
  // Checks that nr entries fit in the record.
  static absl::StatusOr<ThreadMapRecord> From(const Record& record);
  uint64_t nr() const { return U64(8); }
  uint64_t pid(size_t i) const { return U64(16 + 24 * i); }
  absl::string_view comm(size_t i) const { return String(24 + 24 * i, 40 + 24 * i); }

 private:
  using RecordView::RecordView;
};

// PERF_RECORD_STAT: one counter reading.
class StatRecord : public RecordView {
 public:
  static absl::StatusOr<StatRecord> From(const Record& record);
  uint64_t id() const { return U64(8); }
  uint32_t cpu() const { return U32(16); }
  uint32_t thread() const { return U32(20); }
  uint64_t val() const { return U64(24); }
  uint64_t ena() const { return U64(32); }
  uint64_t run() const { return U64(40); }

 private:
  using RecordView::RecordView;
};

class StatRoundRecord : public RecordView {
 public:
  static absl::StatusOr<StatRoundRecord> From(const Record& record);
  uint64_t round_type() const { return U64(8); }
  uint64_t time() const { return U64(16); }

 private:
  using RecordView::RecordView;
};

// PERF_RECORD_EVENT_UPDATE: a unit, scale, name or cpu list for an event id.
class EventUpdateRecord : public RecordView {
 public:
  static constexpr uint64_t kUnit = 0, kScale = 1, kName = 2, kCpus = 3;
  static absl::StatusOr<EventUpdateRecord> From(const Record& record);
  uint64_t update_type() const { return U64(8); }
  uint64_t id() const { return U64(16); }
  // The unit or name, for kUnit and kName.
  absl::string_view text() const { return String(24, record().size()); }
  base::Bytes data() const { return record().bytes().subspan(24); }

 private:
  using RecordView::RecordView;
};

// PERF_RECORD_COMPRESSED and COMPRESSED2: a zstd frame of records.
class CompressedRecord : public RecordView {
 public:
  static absl::StatusOr<CompressedRecord> From(const Record& record);
  base::Bytes data() const;

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

}  // namespace perftk::perf

#endif  // PERFTK_PERF_RECORD_H_
