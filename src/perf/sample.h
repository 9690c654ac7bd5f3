// PERF_RECORD_SAMPLE payloads and the sample_id trailer of other records:
// decode into plain values and encode back, for every sample_type bit.
//
// DecodeSample(format, EncodeSample(format, s)) == s for every valid sample,
// and EncodeSample(format, DecodeSample(format, bytes)) == bytes.
#ifndef PERFTK_PERF_SAMPLE_H_
#define PERFTK_PERF_SAMPLE_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "base/bytes.h"
#include "perf/attr.h"

namespace perftk::perf {

// What an attr says about the layout of its samples and trailers.
struct SampleFormat {
  uint64_t sample_type = 0;
  uint64_t read_format = 0;
  uint64_t branch_sample_type = 0;
  uint64_t regs_user_mask = 0;
  uint64_t regs_intr_mask = 0;
  bool sample_id_all = false;

  static SampleFormat Of(const EventAttr& attr);
  friend bool operator==(const SampleFormat&, const SampleFormat&) = default;

  bool has(uint64_t bit) const { return (sample_type & bit) != 0; }
  // Size of the sample_id trailer of non-sample records (0 without sample_id_all).
  size_t trailer_size() const;
  // Byte offset of the id (IDENTIFIER or ID) in a sample payload, counted
  // after the perf_event_header; nullopt if samples carry no id.
  std::optional<size_t> id_offset_in_sample() const;
  // Offset of the id counted back from the end of a non-sample record.
  std::optional<size_t> id_offset_from_end() const;
};

struct ReadValue {
  uint64_t value = 0;
  uint64_t id = 0;    // if PERF_FORMAT_ID
  uint64_t lost = 0;  // if PERF_FORMAT_LOST
  bool operator==(const ReadValue&) const = default;
};

struct ReadFormatValues {
  uint64_t time_enabled = 0;
  uint64_t time_running = 0;
  std::vector<ReadValue> values;  // one entry unless PERF_FORMAT_GROUP
  bool operator==(const ReadFormatValues&) const = default;
};

struct BranchEntry {
  uint64_t from = 0;
  uint64_t to = 0;
  uint64_t flags = 0;  // struct perf_branch_entry bitfield, little-endian numbering
  bool operator==(const BranchEntry&) const = default;
};

struct BranchStack {
  uint64_t hw_idx = 0;  // if PERF_SAMPLE_BRANCH_HW_INDEX
  std::vector<BranchEntry> entries;
  std::vector<uint64_t> counters;  // if PERF_SAMPLE_BRANCH_COUNTERS, one per entry
  bool operator==(const BranchStack&) const = default;
};

struct RegisterDump {
  uint64_t abi = 0;              // PERF_SAMPLE_REGS_ABI_*; 0 means no registers follow
  std::vector<uint64_t> values;  // one per bit of the attr's mask when abi != 0
  bool operator==(const RegisterDump&) const = default;
};

struct UserStack {
  std::vector<std::byte> data;  // the copied stack, `size` bytes
  uint64_t dyn_size = 0;        // bytes of it that are valid
  bool operator==(const UserStack&) const = default;
};

// One decoded sample. Fields absent from the sample_type stay zero/empty.
struct Sample {
  uint64_t identifier = 0;
  uint64_t ip = 0;
  uint32_t pid = 0, tid = 0;
  uint64_t time = 0;
  uint64_t addr = 0;
  uint64_t id = 0;
  uint64_t stream_id = 0;
  uint32_t cpu = 0, cpu_reserved = 0;
  uint64_t period = 0;
  ReadFormatValues read;
  std::vector<uint64_t> callchain;
  std::vector<std::byte> raw;
  BranchStack branch_stack;
  RegisterDump regs_user;
  UserStack stack_user;
  uint64_t weight = 0;  // PERF_SAMPLE_WEIGHT or the whole WEIGHT_STRUCT word
  uint64_t data_src = 0;
  uint64_t transaction = 0;
  RegisterDump regs_intr;
  uint64_t phys_addr = 0;
  uint64_t cgroup = 0;
  uint64_t data_page_size = 0;
  uint64_t code_page_size = 0;
  std::vector<std::byte> aux;
  bool operator==(const Sample&) const = default;
};

// The sample_id trailer of a non-sample record.
struct SampleId {
  uint32_t pid = 0, tid = 0;
  uint64_t time = 0;
  uint64_t id = 0;
  uint64_t stream_id = 0;
  uint32_t cpu = 0, cpu_reserved = 0;
  uint64_t identifier = 0;
  bool operator==(const SampleId&) const = default;
};

// `payload` is the record without its 8-byte header. Errors say which field
// ran past the end or holds an impossible count.
absl::StatusOr<Sample> DecodeSample(const SampleFormat& format, base::Bytes payload);
// Where the address fields of a decoded sample lie in its payload, for
// tools that move addresses in place; kAbsent for a field the format lacks.
struct SampleFieldOffsets {
  static constexpr size_t kAbsent = SIZE_MAX;
  size_t ip = kAbsent;
  size_t addr = kAbsent;
  size_t callchain = kAbsent;       // the first entry (after the nr word)
  size_t branch_entries = kAbsent;  // the first entry's `from`; entries are 24 bytes
  size_t stack_user = kAbsent;      // the first byte of the user stack copy
  size_t stack_user_size = 0;       // the copy's bytes (the valid ones: dyn_size)
  size_t size = 0;                  // bytes the fields take (payload bytes past it are not decoded)
};

// Whether decoding copies the user stack into the Sample, or leaves it in
// the payload for a caller that reads it there (through the offsets).
enum class UserStackCopy { kCopy, kLeaveInPayload };

// The same into `sample`, which is reset first; its vectors keep their
// memory, so a hot loop decoding into one Sample allocates nothing once
// they are large enough. On error `sample` holds a partial decode. With
// `offsets`, also says where the address fields and the stack copy lie.
// With UserStackCopy::kLeaveInPayload, stack_user.data stays empty (its
// dyn_size is set).
absl::Status DecodeSampleInto(const SampleFormat& format, base::Bytes payload, Sample& sample,
                              SampleFieldOffsets* offsets = nullptr,
                              UserStackCopy stack = UserStackCopy::kCopy);
// Writes the address fields of `sample` (ip, addr, callchain entries, branch
// from/to) over the payload they were decoded from, at `at`; the caller keeps
// the field counts as decoded (same callchain and branch stack lengths).
void OverwriteSampleAddresses(const SampleFieldOffsets& at, const Sample& sample,
                              base::MutableBytes payload);
// Appends the payload (without header) to `out`.
void EncodeSample(const SampleFormat& format, const Sample& sample, std::vector<std::byte>& out);
// The same in two steps, for a caller that owns the memory: the size of
// the encoding, then the encoding written at `out` (that many bytes).
size_t EncodedSampleSize(const SampleFormat& format, const Sample& sample);
void EncodeSampleAt(const SampleFormat& format, const Sample& sample, std::byte* out);

// `record` is a whole non-sample record; the trailer is its last trailer_size() bytes.
absl::StatusOr<SampleId> DecodeSampleId(const SampleFormat& format, base::Bytes record);
void EncodeSampleId(const SampleFormat& format, const SampleId& id, std::vector<std::byte>& out);

// Converts a sample payload of the other byte order to native order in place.
absl::Status SwapSamplePayload(const SampleFormat& format, base::MutableBytes payload);
// Converts the sample_id trailer at the end of a record in place.
void SwapSampleIdTrailer(const SampleFormat& format, base::MutableBytes record);

// Converts a bitfield word written by a big-endian machine (fields allocated
// from the most significant bit) to the little-endian numbering, or back:
// `widths` are the field widths in declaration order.
uint64_t ReverseBitfieldOrder(uint64_t value, std::initializer_list<int> widths);

}  // namespace perftk::perf

#endif  // PERFTK_PERF_SAMPLE_H_
