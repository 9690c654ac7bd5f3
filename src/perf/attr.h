// One event of a recording: its perf_event_attr (as the bytes the file holds,
// in native order) and the sample ids the kernel gave its instances.
//
// The attr bytes keep the size the recorder wrote (attr.size), so an attr
// from an older or newer ABI is written back as it came. Fields past that
// size read as zero, as the kernel defines them.
#ifndef PERFTK_PERF_ATTR_H_
#define PERFTK_PERF_ATTR_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "base/bytes.h"
#include "perftk/perf_abi.h"

namespace perftk::perf {

class EventAttr {
 public:
  EventAttr() : bytes_(PERF_ATTR_SIZE_VER8) { SetU32(attr_offset::kSize, PERF_ATTR_SIZE_VER8); }

  // Takes attr bytes already in native order. `bytes.size()` must be at least
  // PERF_ATTR_SIZE_VER0; attr.size inside is set to it.
  static absl::StatusOr<EventAttr> FromBytes(base::Bytes bytes);

  base::Bytes bytes() const { return bytes_; }
  uint32_t size() const { return static_cast<uint32_t>(bytes_.size()); }

  uint32_t type() const { return U32(attr_offset::kType); }
  uint64_t config() const { return U64(attr_offset::kConfig); }
  uint64_t sample_type() const { return U64(attr_offset::kSampleType); }
  uint64_t read_format() const { return U64(attr_offset::kReadFormat); }
  uint64_t flags() const { return U64(attr_offset::kFlags); }
  bool flag(int bit) const { return (flags() >> bit) & 1; }
  bool sample_id_all() const { return flag(kAttrFlagSampleIdAll); }
  uint64_t config1() const { return U64(attr_offset::kConfig1); }
  uint64_t config2() const { return U64(attr_offset::kConfig2); }
  uint64_t branch_sample_type() const { return U64(attr_offset::kBranchSampleType); }
  uint64_t sample_regs_user() const { return U64(attr_offset::kSampleRegsUser); }
  uint32_t sample_stack_user() const { return U32(attr_offset::kSampleStackUser); }
  int32_t clockid() const { return static_cast<int32_t>(U32(attr_offset::kClockid)); }
  uint64_t sample_regs_intr() const { return U64(attr_offset::kSampleRegsIntr); }

  // Reads and writes any u32/u64 field by offset (zero past the end on read;
  // a write past the end grows the attr to the current ABI size first).
  uint32_t U32(size_t offset) const;
  uint64_t U64(size_t offset) const;
  void SetU32(size_t offset, uint32_t value);
  void SetU64(size_t offset, uint64_t value);

  void set_sample_type(uint64_t value) { SetU64(attr_offset::kSampleType, value); }

  std::vector<uint64_t>& ids() { return ids_; }
  const std::vector<uint64_t>& ids() const { return ids_; }

 private:
  void GrowTo(size_t size);

  std::vector<std::byte> bytes_;
  std::vector<uint64_t> ids_;
};

// Converts attr bytes of the other byte order to native order, in place:
// u32/u16 fields are swapped as such, the flags bitfield has the bits of each
// byte reversed (bitfields are allocated from the other end on big-endian)
// and the two bits of precise_ip put back in order.
void SwapAttrBytes(base::MutableBytes attr);

// A short name for the event, e.g. "cpu-clock" or "tracepoint 312", for
// listings when the file carries no EVENT_DESC.
std::string DescribeAttr(const EventAttr& attr);

}  // namespace perftk::perf

#endif  // PERFTK_PERF_ATTR_H_
