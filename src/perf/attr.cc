#include "perf/attr.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace perftk::perf {

absl::StatusOr<EventAttr> EventAttr::FromBytes(base::Bytes bytes) {
  if (bytes.size() < PERF_ATTR_SIZE_VER0) {
    return absl::InvalidArgumentError(
        absl::StrFormat("perf_event_attr of %u bytes is smaller than the first ABI (%u bytes)",
                        bytes.size(), PERF_ATTR_SIZE_VER0));
  }
  EventAttr attr;
  attr.bytes_.assign(bytes.begin(), bytes.end());
  attr.SetU32(attr_offset::kSize, static_cast<uint32_t>(bytes.size()));
  return attr;
}

uint32_t EventAttr::U32(size_t offset) const {
  return offset + 4 <= bytes_.size() ? base::Load<uint32_t>(bytes_.data() + offset) : 0;
}

uint64_t EventAttr::U64(size_t offset) const {
  return offset + 8 <= bytes_.size() ? base::Load<uint64_t>(bytes_.data() + offset) : 0;
}

void EventAttr::GrowTo(size_t size) {
  if (bytes_.size() >= size) return;
  bytes_.resize(std::max<size_t>(size, PERF_ATTR_SIZE_VER8));
  base::Store<uint32_t>(bytes_.data() + attr_offset::kSize, static_cast<uint32_t>(bytes_.size()));
}

void EventAttr::SetU32(size_t offset, uint32_t value) {
  GrowTo(offset + 4);
  base::Store<uint32_t>(bytes_.data() + offset, value);
}

void EventAttr::SetU64(size_t offset, uint64_t value) {
  GrowTo(offset + 8);
  base::Store<uint64_t>(bytes_.data() + offset, value);
}

namespace {

uint8_t ReverseBits(uint8_t b) {
  b = static_cast<uint8_t>((b & 0xF0) >> 4 | (b & 0x0F) << 4);
  b = static_cast<uint8_t>((b & 0xCC) >> 2 | (b & 0x33) << 2);
  return static_cast<uint8_t>((b & 0xAA) >> 1 | (b & 0x55) << 1);
}

bool IsU32Field(size_t offset) {
  using namespace attr_offset;
  return offset == kType || offset == kSize || offset == kWakeupEvents || offset == kBpType ||
         offset == kSampleStackUser || offset == kClockid || offset == kAuxWatermark ||
         offset == kAuxSampleSize || offset == kReserved3;
}

}  // namespace

void SwapAttrBytes(base::MutableBytes attr) {
  size_t offset = 0;
  while (offset + 2 <= attr.size()) {
    std::byte* p = attr.data() + offset;
    if (offset == attr_offset::kFlags && offset + 8 <= attr.size()) {
      for (int i = 0; i < 8; ++i) {
        p[i] = static_cast<std::byte>(ReverseBits(static_cast<uint8_t>(p[i])));
      }
      // That puts every one-bit field in place; precise_ip (bits 15-16) is
      // the one field of two bits, whose bits it leaves exchanged.
      uint64_t flags = base::Load<uint64_t>(p);
      uint64_t precise_ip = (flags >> 15) & 3;
      flags = (flags & ~(3ULL << 15)) | ((precise_ip >> 1 | (precise_ip & 1) << 1) << 15);
      base::Store<uint64_t>(p, flags);
      offset += 8;
    } else if (offset == attr_offset::kSampleMaxStack || offset == attr_offset::kReserved2) {
      base::SwapInPlace<uint16_t>(p);
      offset += 2;
    } else if (IsU32Field(offset) && offset + 4 <= attr.size()) {
      base::SwapInPlace<uint32_t>(p);
      offset += 4;
    } else if (offset + 8 <= attr.size()) {
      base::SwapInPlace<uint64_t>(p);
      offset += 8;
    } else {
      break;
    }
  }
}

std::string DescribeAttr(const EventAttr& attr) {
  static constexpr const char* kSoftware[] = {
      "cpu-clock",        "task-clock",   "page-faults",  "context-switches",
      "cpu-migrations",   "minor-faults", "major-faults", "alignment-faults",
      "emulation-faults", "dummy",        "bpf-output",   "cgroup-switches"};
  static constexpr const char* kHardware[] = {"cycles",
                                              "instructions",
                                              "cache-references",
                                              "cache-misses",
                                              "branches",
                                              "branch-misses",
                                              "bus-cycles",
                                              "stalled-cycles-frontend",
                                              "stalled-cycles-backend",
                                              "ref-cycles"};
  uint64_t config = attr.config();
  switch (attr.type()) {
    case PERF_TYPE_SOFTWARE:
      if (config < std::size(kSoftware)) return kSoftware[config];
      break;
    case PERF_TYPE_HARDWARE:
      if ((config & 0xffffffff) < std::size(kHardware)) return kHardware[config & 0xffffffff];
      break;
    case PERF_TYPE_TRACEPOINT:
      return absl::StrCat("tracepoint:", config);
    case PERF_TYPE_BREAKPOINT:
      return absl::StrFormat("mem:0x%x", attr.config1());
    default:
      break;
  }
  return absl::StrFormat("type %u config 0x%x", attr.type(), config);
}

}  // namespace perftk::perf
