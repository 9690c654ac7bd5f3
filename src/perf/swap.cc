#include "perf/swap.h"

#include "absl/status/status.h"
#include "absl/strings/str_format.h"

namespace perftk::perf {

void SwapRecordHeader(std::byte* header) {
  base::SwapInPlace<uint32_t>(header);
  base::SwapInPlace<uint16_t>(header + 4);
  base::SwapInPlace<uint16_t>(header + 6);
}

namespace {

// Swaps the fixed fields of a record body. Each character is one field:
// '2', '4', '8' = an integer of that many bytes; 'b' = the rest of the body
// up to the trailer is bytes; 'q' = the rest is u64 words; 's' = a string
// (bytes) up to the trailer; '#N;' skips N raw bytes.
void SwapFields(const char* layout, std::byte* p, std::byte* end) {
  for (const char* c = layout; *c != '\0'; ++c) {
    switch (*c) {
      case '2':
        if (p + 2 > end) return;
        base::SwapInPlace<uint16_t>(p);
        p += 2;
        break;
      case '4':
        if (p + 4 > end) return;
        base::SwapInPlace<uint32_t>(p);
        p += 4;
        break;
      case '8':
        if (p + 8 > end) return;
        base::SwapInPlace<uint64_t>(p);
        p += 8;
        break;
      case 'q':
        while (p + 8 <= end) {
          base::SwapInPlace<uint64_t>(p);
          p += 8;
        }
        return;
      case '#': {
        int skip = 0;
        while (c[1] >= '0' && c[1] <= '9') skip = skip * 10 + (*++c - '0');
        if (c[1] == ';') ++c;
        p += skip;
        break;
      }
      default:  // 'b', 's'
        return;
    }
  }
}

// Body layouts of record types, without header and sample_id trailer.
const char* BodyLayout(uint32_t type, uint16_t misc) {
  switch (type) {
    case PERF_RECORD_MMAP:
      return "44888s";
    case PERF_RECORD_LOST:
      return "88";
    case PERF_RECORD_COMM:
      return "44s";
    case PERF_RECORD_EXIT:
    case PERF_RECORD_FORK:
      return "44448";
    case PERF_RECORD_THROTTLE:
    case PERF_RECORD_UNTHROTTLE:
      return "888";
    case PERF_RECORD_READ:
      return "44q";
    case PERF_RECORD_MMAP2:
      return (misc & PERF_RECORD_MISC_MMAP_BUILD_ID) ? "44888#24;44s"
                                                     : "448884488"
                                                       "44s";
    case PERF_RECORD_AUX:
      return "888";
    case PERF_RECORD_ITRACE_START:
      return "44";
    case PERF_RECORD_LOST_SAMPLES:
      return "8";
    case PERF_RECORD_SWITCH:
      return "";
    case PERF_RECORD_SWITCH_CPU_WIDE:
      return "44";
    case PERF_RECORD_NAMESPACES:
      return "448q";
    case PERF_RECORD_KSYMBOL:
      return "8422s";
    case PERF_RECORD_BPF_EVENT:
      return "224b";
    case PERF_RECORD_CGROUP:
      return "8s";
    case PERF_RECORD_TEXT_POKE:
      return "822b";
    case PERF_RECORD_AUX_OUTPUT_HW_ID:
      return "8";
    case PERF_RECORD_CALLCHAIN_DEFERRED:
      return "88q";
    case PERF_RECORD_HEADER_EVENT_TYPE:
      return "8b";
    case PERF_RECORD_HEADER_TRACING_DATA:
      return "44";
    case PERF_RECORD_HEADER_BUILD_ID:
      return "4b";
    case PERF_RECORD_FINISHED_ROUND:
    case PERF_RECORD_FINISHED_INIT:
      return "";
    case PERF_RECORD_ID_INDEX:
      return "q";
    case PERF_RECORD_AUXTRACE_INFO:
      return "44q";
    case PERF_RECORD_AUXTRACE:
      return "8884444";
    case PERF_RECORD_AUXTRACE_ERROR:
      return "44444488#64;44";
    case PERF_RECORD_STAT_CONFIG:
    case PERF_RECORD_STAT_ROUND:
      return "q";
    case PERF_RECORD_STAT:
      return "8448q";
    case PERF_RECORD_TIME_CONV:
      return "88888b";
    case PERF_RECORD_HEADER_FEATURE:
      return "8b";
    case PERF_RECORD_COMPRESSED:
      return "b";
    case PERF_RECORD_COMPRESSED2:
      return "8b";
    default:
      return nullptr;
  }
}

// perf_record_cpu_map_data (in CPU_MAP and EVENT_UPDATE records): u16 type,
// then by type: CPUS {u16 nr, u16 cpu[nr]}; MASK {u16 nr, u16 long_size,
// u32 mask[nr] | 4 pad bytes + u64 mask[nr]}; RANGE_CPUS {u8, u8, u16, u16}.
void SwapCpuMapData(std::byte* p, std::byte* end) {
  auto fits = [end](std::byte* at, size_t n) {
    return at <= end && n <= static_cast<size_t>(end - at);
  };
  if (!fits(p, 2)) return;
  base::SwapInPlace<uint16_t>(p);
  const uint16_t map_type = base::Load<uint16_t>(p);
  std::byte* u = p + 2;
  if (map_type == 0 && fits(u, 2)) {
    base::SwapInPlace<uint16_t>(u);
    const uint16_t nr = base::Load<uint16_t>(u);
    for (size_t i = 0; i < nr && fits(u + 2 + 2 * i, 2); ++i)
      base::SwapInPlace<uint16_t>(u + 2 + 2 * i);
  } else if (map_type == 1 && fits(u, 4)) {
    base::SwapInPlace<uint16_t>(u);
    base::SwapInPlace<uint16_t>(u + 2);
    const uint16_t nr = base::Load<uint16_t>(u);
    const uint16_t long_size = base::Load<uint16_t>(u + 2);
    if (long_size == 4) {
      for (size_t i = 0; i < nr && fits(u + 4 + 4 * i, 4); ++i)
        base::SwapInPlace<uint32_t>(u + 4 + 4 * i);
    } else if (long_size == 8) {
      for (size_t i = 0; i < nr && fits(u + 8 + 8 * i, 8); ++i)
        base::SwapInPlace<uint64_t>(u + 8 + 8 * i);
    }
  } else if (map_type == 2 && fits(u, 6)) {
    base::SwapInPlace<uint16_t>(u + 2);
    base::SwapInPlace<uint16_t>(u + 4);
  }
}

// THREAD_MAP, CPU_MAP and EVENT_UPDATE, which perf record writes into every
// recording: their layouts depend on counts and type fields inside them.
// Returns false for other record types.
bool SwapSessionRecord(uint32_t type, std::byte* body, std::byte* end) {
  const size_t size = static_cast<size_t>(end - body);
  switch (type) {
    case PERF_RECORD_THREAD_MAP: {  // u64 nr, {u64 pid, char comm[16]}[nr]
      if (size < 8) return true;
      base::SwapInPlace<uint64_t>(body);
      const uint64_t nr = base::Load<uint64_t>(body);
      for (uint64_t i = 0; i < nr && i < (size - 8) / 24; ++i)
        base::SwapInPlace<uint64_t>(body + 8 + 24 * i);
      return true;
    }
    case PERF_RECORD_CPU_MAP:
      SwapCpuMapData(body, end);
      return true;
    case PERF_RECORD_EVENT_UPDATE: {  // u64 type, u64 id, then by type
      if (size < 16) return true;
      base::SwapInPlace<uint64_t>(body);
      base::SwapInPlace<uint64_t>(body + 8);
      const uint64_t update_type = base::Load<uint64_t>(body);
      if (update_type == 1 && size >= 24)
        base::SwapInPlace<uint64_t>(body + 16);              // SCALE: a double
      if (update_type == 3) SwapCpuMapData(body + 16, end);  // CPUS
      return true;                                           // UNIT, NAME: text
    }
    default:
      return false;
  }
}

bool HasTrailer(uint32_t type) {
  return type < PERF_RECORD_USER_TYPE_START && type != PERF_RECORD_SAMPLE;
}

// The event a foreign-order record belongs to, found without swapping it.
size_t ForeignEventIndex(const EventList& events, base::MutableBytes record, bool is_sample) {
  if (events.size() <= 1) return 0;
  const SampleFormat& first = events.format(0);
  std::optional<size_t> offset;
  if (is_sample) {
    std::optional<size_t> in_sample = first.id_offset_in_sample();
    if (in_sample) offset = kRecordHeaderSize + *in_sample;
  } else {
    std::optional<size_t> from_end = first.id_offset_from_end();
    if (from_end && *from_end <= record.size()) offset = record.size() - *from_end;
  }
  if (!offset || *offset + 8 > record.size()) return 0;
  uint64_t id = base::ByteSwap(base::Load<uint64_t>(record.data() + *offset));
  return events.IndexOfId(id).value_or(0);
}

}  // namespace

absl::Status SwapRecordToNative(const EventList& events, base::MutableBytes record) {
  if (record.size() < kRecordHeaderSize) {
    return absl::DataLossError("record shorter than its header");
  }
  SwapRecordHeader(record.data());
  uint32_t type = base::Load<uint32_t>(record.data());
  uint16_t misc = base::Load<uint16_t>(record.data() + 4);
  std::byte* body = record.data() + kRecordHeaderSize;
  std::byte* end = record.data() + record.size();

  if (type == PERF_RECORD_HEADER_ATTR) {
    if (record.size() < kRecordHeaderSize + PERF_ATTR_SIZE_VER0) {
      return absl::DataLossError(absl::StrFormat(
          "HEADER_ATTR record of %u bytes is too short for an attr", record.size()));
    }
    size_t attr_size =
        std::min<size_t>(record.size() - kRecordHeaderSize,
                         base::ByteSwap(base::Load<uint32_t>(body + attr_offset::kSize)));
    if (attr_size == 0) attr_size = PERF_ATTR_SIZE_VER0;
    attr_size = std::min<size_t>(attr_size, record.size() - kRecordHeaderSize);
    SwapAttrBytes(base::MutableBytes(body, attr_size));
    SwapFields("q", body + attr_size, end);
    return absl::OkStatus();
  }
  if (SwapSessionRecord(type, body, end)) return absl::OkStatus();
  if (events.empty()) {
    if (const char* layout = BodyLayout(type, misc)) SwapFields(layout, body, end);
    return absl::OkStatus();
  }
  const bool is_sample = type == PERF_RECORD_SAMPLE;
  const SampleFormat& format = events.format(ForeignEventIndex(events, record, is_sample));
  if (is_sample) {
    return SwapSamplePayload(format, base::MutableBytes(body, end));
  }
  if (HasTrailer(type)) {
    size_t trailer = format.trailer_size();
    if (trailer > static_cast<size_t>(end - body)) {
      return absl::DataLossError(
          absl::StrFormat("%s record of %u bytes is shorter than its sample_id trailer",
                          RecordTypeName(type), record.size()));
    }
    SwapSampleIdTrailer(format, record);
    end -= trailer;
  }
  if (const char* layout = BodyLayout(type, misc)) SwapFields(layout, body, end);
  return absl::OkStatus();
}

}  // namespace perftk::perf
