#include "perf/record.h"

#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/status_prefix.h"

namespace perftk::perf {

bool Record::is_header_record() const {
  switch (type()) {
    case PERF_RECORD_HEADER_ATTR:
    case PERF_RECORD_HEADER_EVENT_TYPE:
    case PERF_RECORD_HEADER_TRACING_DATA:
    case PERF_RECORD_HEADER_BUILD_ID:
    case PERF_RECORD_HEADER_FEATURE:
      return true;
    default:
      return false;
  }
}

OwnedRecord::OwnedRecord(const Record& record)
    : bytes_(record.bytes().begin(), record.bytes().end()),
      payload_(record.trailing_payload().begin(), record.trailing_payload().end()),
      file_offset_(record.file_offset()) {}

OwnedRecord::OwnedRecord(std::vector<std::byte> bytes, std::vector<std::byte> trailing_payload,
                         uint64_t file_offset)
    : bytes_(std::move(bytes)), payload_(std::move(trailing_payload)), file_offset_(file_offset) {}

absl::Status CheckRecordSize(uint32_t type, size_t size) {
  if (size <= 0xffff) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrFormat(
      "%s record of %u bytes does not fit the 16-bit size field", RecordTypeName(type), size));
}

absl::StatusOr<std::vector<std::byte>> MakeRecordBytes(uint32_t type, uint16_t misc,
                                                       base::Bytes body) {
  const size_t size = kRecordHeaderSize + body.size();
  if (absl::Status s = CheckRecordSize(type, size); !s.ok()) return s;
  std::vector<std::byte> bytes;
  bytes.reserve(size);
  base::Append(bytes, type);
  base::Append(bytes, misc);
  base::Append(bytes, static_cast<uint16_t>(size));
  base::AppendBytes(bytes, body);
  return bytes;
}

absl::Status ForEachRecordIn(base::Bytes records,
                             absl::FunctionRef<absl::Status(const Record&)> visit) {
  while (records.size() >= kRecordHeaderSize) {
    const uint16_t size = Record(records, 0).size();
    if (size < kRecordHeaderSize || size > records.size()) break;
    if (absl::Status s = visit(Record(records.first(size), 0)); !s.ok()) return s;
    records = records.subspan(size);
  }
  if (records.empty()) return absl::OkStatus();
  return absl::InternalError(
      absl::StrFormat("a record built in memory is cut short: %u bytes left", records.size()));
}

absl::Status SetRecordHeader(uint32_t type, uint16_t misc, std::vector<std::byte>& record) {
  return SetRecordHeader(type, misc, base::MutableBytes(record));
}

absl::Status SetRecordHeader(uint32_t type, uint16_t misc, base::MutableBytes record) {
  const size_t size = record.size();
  if (size < kRecordHeaderSize) {
    return absl::InternalError("a record built in place has no room for its header");
  }
  if (absl::Status s = CheckRecordSize(type, size); !s.ok()) return s;
  base::Store<uint32_t>(record.data(), type);
  base::Store<uint16_t>(record.data() + 4, misc);
  base::Store<uint16_t>(record.data() + 6, static_cast<uint16_t>(size));
  return absl::OkStatus();
}

std::string RecordTypeName(uint32_t type) {
  static constexpr const char* kKernel[] = {nullptr,
                                            "MMAP",
                                            "LOST",
                                            "COMM",
                                            "EXIT",
                                            "THROTTLE",
                                            "UNTHROTTLE",
                                            "FORK",
                                            "READ",
                                            "SAMPLE",
                                            "MMAP2",
                                            "AUX",
                                            "ITRACE_START",
                                            "LOST_SAMPLES",
                                            "SWITCH",
                                            "SWITCH_CPU_WIDE",
                                            "NAMESPACES",
                                            "KSYMBOL",
                                            "BPF_EVENT",
                                            "CGROUP",
                                            "TEXT_POKE",
                                            "AUX_OUTPUT_HW_ID",
                                            "CALLCHAIN_DEFERRED"};
  static constexpr const char* kUser[] = {"HEADER_ATTR",
                                          "HEADER_EVENT_TYPE",
                                          "HEADER_TRACING_DATA",
                                          "HEADER_BUILD_ID",
                                          "FINISHED_ROUND",
                                          "ID_INDEX",
                                          "AUXTRACE_INFO",
                                          "AUXTRACE",
                                          "AUXTRACE_ERROR",
                                          "THREAD_MAP",
                                          "CPU_MAP",
                                          "STAT_CONFIG",
                                          "STAT",
                                          "STAT_ROUND",
                                          "EVENT_UPDATE",
                                          "TIME_CONV",
                                          "HEADER_FEATURE",
                                          "COMPRESSED",
                                          "FINISHED_INIT",
                                          "COMPRESSED2",
                                          "BPF_METADATA",
                                          "SCHEDSTAT_CPU",
                                          "SCHEDSTAT_DOMAIN"};
  if (type > 0 && type < std::size(kKernel)) return kKernel[type];
  if (type >= PERF_RECORD_USER_TYPE_START &&
      type - PERF_RECORD_USER_TYPE_START < std::size(kUser)) {
    return kUser[type - PERF_RECORD_USER_TYPE_START];
  }
  return absl::StrCat("UNKNOWN(", type, ")");
}

absl::Status RecordView::CheckSize(const Record& record, size_t min_size, const char* what) {
  if (record.bytes().size() >= min_size) return absl::OkStatus();
  return absl::DataLossError(
      absl::StrFormat("offset %#x: %s record of %u bytes is shorter than its %u-byte layout",
                      record.file_offset(), what, record.bytes().size(), min_size));
}

absl::string_view RecordView::String(size_t offset, size_t end) const {
  base::Bytes bytes = record_.bytes();
  end = std::min(end, bytes.size());
  if (offset >= end) return {};
  const char* begin = reinterpret_cast<const char*>(bytes.data() + offset);
  size_t max = end - offset;
  return absl::string_view(begin, strnlen(begin, max));
}

#define PERFTK_VIEW_FROM(View, min_size, name)                                 \
  absl::StatusOr<View> View::From(const Record& record) {                      \
    if (absl::Status s = CheckSize(record, min_size, name); !s.ok()) return s; \
    return View(record);                                                       \
  }

PERFTK_VIEW_FROM(MmapRecord, 40, "MMAP")
PERFTK_VIEW_FROM(Mmap2Record, 72, "MMAP2")
PERFTK_VIEW_FROM(CommRecord, 16, "COMM")
PERFTK_VIEW_FROM(ForkRecord, 32, "FORK/EXIT")
PERFTK_VIEW_FROM(KsymbolRecord, 24, "KSYMBOL")
PERFTK_VIEW_FROM(TextPokeRecord, 20, "TEXT_POKE")
PERFTK_VIEW_FROM(AuxRecord, 32, "AUX")
PERFTK_VIEW_FROM(AuxtraceRecord, kAuxtraceRecordSize, "AUXTRACE")
PERFTK_VIEW_FROM(AuxtraceInfoRecord, 16, "AUXTRACE_INFO")
PERFTK_VIEW_FROM(HeaderFeatureRecord, 16, "HEADER_FEATURE")
PERFTK_VIEW_FROM(LostRecord, 24, "LOST")
PERFTK_VIEW_FROM(ThrottleRecord, 32, "THROTTLE")
PERFTK_VIEW_FROM(ReadRecord, 24, "READ")
PERFTK_VIEW_FROM(ItraceStartRecord, 16, "ITRACE_START")
PERFTK_VIEW_FROM(LostSamplesRecord, 16, "LOST_SAMPLES")
PERFTK_VIEW_FROM(BpfEventRecord, 24, "BPF_EVENT")
PERFTK_VIEW_FROM(CgroupRecord, 16, "CGROUP")
PERFTK_VIEW_FROM(AuxOutputHwIdRecord, 16, "AUX_OUTPUT_HW_ID")
PERFTK_VIEW_FROM(HeaderBuildIdRecord, 36, "HEADER_BUILD_ID")
PERFTK_VIEW_FROM(AuxtraceErrorRecord, 112, "AUXTRACE_ERROR")
PERFTK_VIEW_FROM(TimeConvRecord, 32, "TIME_CONV")
PERFTK_VIEW_FROM(StatRecord, 48, "STAT")
PERFTK_VIEW_FROM(StatRoundRecord, 24, "STAT_ROUND")
PERFTK_VIEW_FROM(EventUpdateRecord, 24, "EVENT_UPDATE")
#undef PERFTK_VIEW_FROM

absl::StatusOr<SwitchRecord> SwitchRecord::From(const Record& record) {
  // Only SWITCH_CPU_WIDE carries next_prev_pid/tid.
  const bool cpu_wide = record.type() == PERF_RECORD_SWITCH_CPU_WIDE;
  absl::Status s = CheckSize(record, cpu_wide ? 16 : 8, cpu_wide ? "SWITCH_CPU_WIDE" : "SWITCH");
  if (!s.ok()) return s;
  return SwitchRecord(record);
}

// Views with a count of entries check that the entries fit.
#define PERFTK_COUNTED_VIEW_FROM(View, fixed, count_offset, entry_size, name)                    \
  absl::StatusOr<View> View::From(const Record& record) {                                        \
    if (absl::Status s = CheckSize(record, fixed, name); !s.ok()) return s;                      \
    uint64_t count = base::Load<uint64_t>(record.bytes().data() + count_offset);                 \
    if (count > (record.bytes().size() - fixed) / entry_size) {                                  \
      return absl::DataLossError(absl::StrFormat("%s record of %u bytes cannot hold %u entries", \
                                                 name, record.bytes().size(), count));           \
    }                                                                                            \
    return View(record);                                                                         \
  }

PERFTK_COUNTED_VIEW_FROM(NamespacesRecord, 24, 16, 16, "NAMESPACES")
PERFTK_COUNTED_VIEW_FROM(CallchainDeferredRecord, 24, 16, 8, "CALLCHAIN_DEFERRED")
PERFTK_COUNTED_VIEW_FROM(IdIndexRecord, 16, 8, 32, "ID_INDEX")
PERFTK_COUNTED_VIEW_FROM(ThreadMapRecord, 16, 8, 24, "THREAD_MAP")
#undef PERFTK_COUNTED_VIEW_FROM

absl::StatusOr<CompressedRecord> CompressedRecord::From(const Record& record) {
  if (record.type() != PERF_RECORD_COMPRESSED2) return CompressedRecord(record);
  if (absl::Status s = CheckSize(record, 16, "COMPRESSED2"); !s.ok()) return s;
  uint64_t size = base::Load<uint64_t>(record.bytes().data() + 8);
  if (size > record.bytes().size() - 16) {
    return absl::DataLossError("COMPRESSED2 record's data size exceeds the record");
  }
  return CompressedRecord(record);
}

base::Bytes CompressedRecord::data() const {
  if (record().type() != PERF_RECORD_COMPRESSED2) return record().body();
  return record().bytes().subspan(16, U64(8));
}

base::Bytes HeaderBuildIdRecord::build_id() const {
  size_t size = 20;
  if (record().misc() & PERF_RECORD_MISC_BUILD_ID_SIZE) {
    size = std::min<size_t>(20, static_cast<uint8_t>(record().bytes()[32]));
  }
  return record().bytes().subspan(12, size);
}

base::Bytes Mmap2Record::build_id() const {
  uint8_t size = static_cast<uint8_t>(record().bytes()[40]);
  return record().bytes().subspan(44, std::min<size_t>(size, 20));
}

std::vector<uint64_t> AuxtraceInfoRecord::priv() const {
  std::vector<uint64_t> words((record().size() - 16) / 8);
  for (size_t i = 0; i < words.size(); ++i) words[i] = U64(16 + 8 * i);
  return words;
}

absl::StatusOr<HeaderAttrRecord> HeaderAttrRecord::From(const Record& record) {
  if (absl::Status s = CheckSize(record, 8 + PERF_ATTR_SIZE_VER0, "HEADER_ATTR"); !s.ok()) return s;
  HeaderAttrRecord view(record);
  uint32_t attr_size = view.U32(8 + attr_offset::kSize);
  if (attr_size == 0) attr_size = PERF_ATTR_SIZE_VER0;
  if (attr_size < PERF_ATTR_SIZE_VER0 || attr_size > record.bytes().size() - 8) {
    return absl::DataLossError(
        absl::StrFormat("HEADER_ATTR record of %u bytes holds an attr of impossible size %u",
                        record.bytes().size(), attr_size));
  }
  return view;
}

base::Bytes HeaderAttrRecord::attr_bytes() const {
  uint32_t attr_size = U32(8 + attr_offset::kSize);
  if (attr_size == 0) attr_size = PERF_ATTR_SIZE_VER0;
  return record().bytes().subspan(8, attr_size);
}

std::vector<uint64_t> HeaderAttrRecord::ids() const {
  size_t begin = 8 + attr_bytes().size();
  std::vector<uint64_t> ids((record().bytes().size() - begin) / 8);
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = U64(begin + 8 * i);
  return ids;
}

absl::Status RecordError(const Record& record, const absl::Status& status) {
  return base::Prefixed(absl::StrFormat("offset %#x: %s record: ", record.file_offset(),
                                        RecordTypeName(record.type())),
                        status);
}

}  // namespace perftk::perf
