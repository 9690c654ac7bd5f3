// Test-only builders for perf.data bytes: attrs, records of every type and
// whole recordings in file or pipe layout, in either byte order.
//
// Everything is described as a list of typed fields (Fields) and serialized
// at the end, each integer written from its known width in the requested
// byte order. Nothing here calls perftk's swap or encode code, so bytes
// built big-endian are an independent oracle for the reader's conversion.
#ifndef PERFTK_TESTS_PERF_BUILDER_H_
#define PERFTK_TESTS_PERF_BUILDER_H_

#include <bit>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "base/bytes.h"
#include "perf/attr.h"
#include "perf/header.h"
#include "perf/record.h"
#include "perf/sample.h"
#include "perftk/perf_abi.h"

namespace perftk::testing {

enum class Endian { kLittle, kBig };
inline constexpr Endian kNative =
    std::endian::native == std::endian::little ? Endian::kLittle : Endian::kBig;
inline constexpr Endian kForeign = kNative == Endian::kLittle ? Endian::kBig : Endian::kLittle;

// Field widths of bitfield words, in declaration order. The kernel declares
// these without a big-endian variant, so a big-endian compiler allocates the
// first field at the most significant bit.
extern const std::vector<int> kAttrFlagWidths;    // perf_event_attr flags
extern const std::vector<int> kBranchFlagWidths;  // perf_branch_entry flags

// A sequence of typed fields, serialized in either byte order.
class Fields {
 public:
  Fields& U8(uint8_t v) { return Int(1, v); }
  Fields& U16(uint16_t v) { return Int(2, v); }
  Fields& U32(uint32_t v) { return Int(4, v); }
  Fields& U64(uint64_t v) { return Int(8, v); }
  // Bytes that are the same in either byte order (strings, traced memory).
  Fields& Raw(base::Bytes bytes);
  Fields& Raw(std::string_view text);
  Fields& Zeros(size_t n);
  // A NUL-terminated string, zero-padded to a multiple of `align`.
  Fields& String(std::string_view text, size_t align = 8);
  // A perf header "string": u32 length, then the NUL-padded text
  // (length a multiple of 64, as perf writes it).
  Fields& PerfString(std::string_view text);
  // A u64 bitfield given in little-endian numbering (first field at bit 0);
  // big-endian output allocates the first field at the most significant bit.
  Fields& Bitfield64(uint64_t value, const std::vector<int>& widths);
  Fields& Append(const Fields& other);

  size_t size() const { return size_; }
  std::vector<std::byte> Serialize(Endian endian) const;
  void SerializeTo(Endian endian, std::vector<std::byte>& out) const;

 private:
  struct Item {
    int width = 0;  // 1, 2, 4, 8 for integers; 0 for raw bytes
    uint64_t value = 0;
    std::vector<std::byte> bytes;
    std::vector<int> bitfield;  // non-empty for Bitfield64
  };
  Fields& Int(int width, uint64_t value);

  std::vector<Item> items_;
  size_t size_ = 0;
};

// Writes `value` as `width` bytes in the given order (no perftk code used).
void PutInt(std::vector<std::byte>& out, int width, uint64_t value, Endian endian);
// Converts a u64 bitfield from little-endian numbering to the numbering a
// big-endian compiler gives the same fields.
uint64_t ToBigEndianBitfield(uint64_t value, const std::vector<int>& widths);

// A perf_event_attr, field by field, plus the ids of its instances.
class AttrBuilder {
 public:
  AttrBuilder() = default;
  // Every field of an attr held in native order (e.g. read from a real file).
  static AttrBuilder FromNative(const perf::EventAttr& attr);

  AttrBuilder& Type(uint32_t v) {
    type_ = v;
    return *this;
  }
  AttrBuilder& Config(uint64_t v) {
    config_ = v;
    return *this;
  }
  AttrBuilder& SamplePeriod(uint64_t v) {
    sample_period_ = v;
    return *this;
  }
  AttrBuilder& SampleType(uint64_t v) {
    sample_type_ = v;
    return *this;
  }
  AttrBuilder& ReadFormat(uint64_t v) {
    read_format_ = v;
    return *this;
  }
  // Sets one flag bit (little-endian numbering, e.g. kAttrFlagSampleIdAll).
  AttrBuilder& Flag(int bit) {
    flags_ |= 1ULL << bit;
    return *this;
  }
  AttrBuilder& Flags(uint64_t v) {
    flags_ = v;
    return *this;
  }
  AttrBuilder& SampleIdAll() { return Flag(kAttrFlagSampleIdAll); }
  AttrBuilder& WakeupEvents(uint32_t v) {
    wakeup_events_ = v;
    return *this;
  }
  AttrBuilder& BpType(uint32_t v) {
    bp_type_ = v;
    return *this;
  }
  AttrBuilder& Config1(uint64_t v) {
    config1_ = v;
    return *this;
  }
  AttrBuilder& Config2(uint64_t v) {
    config2_ = v;
    return *this;
  }
  AttrBuilder& BranchSampleType(uint64_t v) {
    branch_sample_type_ = v;
    return *this;
  }
  AttrBuilder& RegsUser(uint64_t mask) {
    regs_user_ = mask;
    return *this;
  }
  AttrBuilder& StackUser(uint32_t v) {
    stack_user_ = v;
    return *this;
  }
  AttrBuilder& Clockid(int32_t v) {
    clockid_ = v;
    return *this;
  }
  AttrBuilder& RegsIntr(uint64_t mask) {
    regs_intr_ = mask;
    return *this;
  }
  AttrBuilder& AuxWatermark(uint32_t v) {
    aux_watermark_ = v;
    return *this;
  }
  AttrBuilder& SampleMaxStack(uint16_t v) {
    sample_max_stack_ = v;
    return *this;
  }
  AttrBuilder& AuxSampleSize(uint32_t v) {
    aux_sample_size_ = v;
    return *this;
  }
  AttrBuilder& SigData(uint64_t v) {
    sig_data_ = v;
    return *this;
  }
  AttrBuilder& Config3(uint64_t v) {
    config3_ = v;
    return *this;
  }
  // u64 words past the newest known field, for attrs of a future ABI.
  AttrBuilder& FutureWords(std::vector<uint64_t> words) {
    future_ = std::move(words);
    return *this;
  }
  // attr.size; the serialized attr is cut (or zero-extended) to it.
  AttrBuilder& Size(uint32_t v) {
    size_ = v;
    return *this;
  }
  AttrBuilder& Ids(std::vector<uint64_t> ids) {
    ids_ = std::move(ids);
    return *this;
  }

  uint64_t sample_type() const { return sample_type_; }
  uint64_t read_format() const { return read_format_; }
  uint64_t branch_sample_type() const { return branch_sample_type_; }
  uint64_t regs_user() const { return regs_user_; }
  uint64_t regs_intr() const { return regs_intr_; }
  bool sample_id_all() const { return (flags_ >> kAttrFlagSampleIdAll) & 1; }
  uint32_t size() const { return size_; }
  const std::vector<uint64_t>& ids() const { return ids_; }

  Fields ToFields() const;  // exactly size() bytes
  std::vector<std::byte> Serialize(Endian endian) const { return ToFields().Serialize(endian); }
  // The production type, built from the native bytes.
  perf::EventAttr Build() const;
  perf::SampleFormat Format() const { return perf::SampleFormat::Of(Build()); }

 private:
  uint32_t type_ = PERF_TYPE_SOFTWARE;
  uint64_t config_ = 0;
  uint64_t sample_period_ = 0;
  uint64_t sample_type_ = 0;
  uint64_t read_format_ = 0;
  uint64_t flags_ = 0;
  uint32_t wakeup_events_ = 0;
  uint32_t bp_type_ = 0;
  uint64_t config1_ = 0;
  uint64_t config2_ = 0;
  uint64_t branch_sample_type_ = 0;
  uint64_t regs_user_ = 0;
  uint32_t stack_user_ = 0;
  int32_t clockid_ = 0;
  uint64_t regs_intr_ = 0;
  uint32_t aux_watermark_ = 0;
  uint16_t sample_max_stack_ = 0;
  uint32_t aux_sample_size_ = 0;
  uint64_t sig_data_ = 0;
  uint64_t config3_ = 0;
  std::vector<uint64_t> future_;
  uint32_t size_ = PERF_ATTR_SIZE_VER8;
  std::vector<uint64_t> ids_;
};

// The sample payload (no header) of `sample` as `attr` lays it out.
Fields SampleFields(const AttrBuilder& attr, const perf::Sample& sample);
// The sample_id trailer of `id` as `attr` lays it out (empty without sample_id_all).
Fields SampleIdFields(const AttrBuilder& attr, const perf::SampleId& id);

// One record: type, misc, body fields, optional sample_id trailer and the
// data that follows AUXTRACE / HEADER_TRACING_DATA records.
class RecordBuilder {
 public:
  explicit RecordBuilder(uint32_t type, uint16_t misc = 0) : type_(type), misc_(misc) {}

  RecordBuilder& Misc(uint16_t misc) {
    misc_ = misc;
    return *this;
  }
  RecordBuilder& U8(uint8_t v) {
    body_.U8(v);
    return *this;
  }
  RecordBuilder& U16(uint16_t v) {
    body_.U16(v);
    return *this;
  }
  RecordBuilder& U32(uint32_t v) {
    body_.U32(v);
    return *this;
  }
  RecordBuilder& U64(uint64_t v) {
    body_.U64(v);
    return *this;
  }
  RecordBuilder& Raw(base::Bytes bytes) {
    body_.Raw(bytes);
    return *this;
  }
  RecordBuilder& Zeros(size_t n) {
    body_.Zeros(n);
    return *this;
  }
  RecordBuilder& String(std::string_view s, size_t align = 8) {
    body_.String(s, align);
    return *this;
  }
  RecordBuilder& Body(const Fields& fields) {
    body_.Append(fields);
    return *this;
  }
  RecordBuilder& WithSampleId(const AttrBuilder& attr, const perf::SampleId& id);
  RecordBuilder& TrailingPayload(std::vector<std::byte> payload) {
    payload_ = std::move(payload);
    return *this;
  }
  // Writes this value in header.size instead of the true size (bad input).
  RecordBuilder& SizeOverride(uint16_t size) {
    size_override_ = size;
    return *this;
  }

  uint32_t type() const { return type_; }
  uint16_t misc() const { return misc_; }
  size_t size() const { return perf::kRecordHeaderSize + body_.size(); }
  const std::vector<std::byte>& trailing_payload() const { return payload_; }

  // The header and body as fields (e.g. to place build-id entries in a
  // feature section).
  Fields ToFields() const;
  // The record bytes (header included), without the trailing payload.
  std::vector<std::byte> Build(Endian endian = kNative) const;
  // The record followed by its trailing payload, as a stream holds it.
  std::vector<std::byte> BuildWithPayload(Endian endian = kNative) const;

 private:
  uint32_t type_;
  uint16_t misc_;
  Fields body_;
  std::vector<std::byte> payload_;
  int size_override_ = -1;
};

// Typed factories for the records tools look inside. Strings are padded to
// 8 bytes as the kernel does.
struct MmapFields {
  uint32_t pid = 0, tid = 0;
  uint64_t start = 0, len = 0, pgoff = 0;
  std::string filename = {};
};
RecordBuilder MakeMmap(const MmapFields& f, uint16_t misc = PERF_RECORD_MISC_USER);

struct Mmap2Fields {
  uint32_t pid = 0, tid = 0;
  uint64_t start = 0, len = 0, pgoff = 0;
  uint32_t maj = 0, min = 0;
  uint64_t ino = 0, ino_generation = 0;
  std::vector<uint8_t> build_id = {};  // non-empty: the build-id form of the union
  uint32_t prot = 0, flags = 0;
  std::string filename = {};
};
RecordBuilder MakeMmap2(const Mmap2Fields& f, uint16_t misc = PERF_RECORD_MISC_USER);

RecordBuilder MakeComm(uint32_t pid, uint32_t tid, std::string_view comm, bool exec = false);

struct ForkFields {
  uint32_t pid = 0, ppid = 0, tid = 0, ptid = 0;
  uint64_t time = 0;
};
RecordBuilder MakeFork(const ForkFields& f);
RecordBuilder MakeExit(const ForkFields& f);

struct KsymbolFields {
  uint64_t addr = 0;
  uint32_t len = 0;
  uint16_t ksym_type = 0, flags = 0;
  std::string name = {};
};
RecordBuilder MakeKsymbol(const KsymbolFields& f);

RecordBuilder MakeTextPoke(uint64_t addr, std::vector<std::byte> old_bytes,
                           std::vector<std::byte> new_bytes);
RecordBuilder MakeAux(uint64_t aux_offset, uint64_t aux_size, uint64_t flags);

struct AuxtraceFields {
  uint64_t offset = 0, reference = 0;
  uint32_t idx = 0, tid = 0, cpu = 0;
};
// AUXTRACE with `data` as its trailing payload (size field = data.size()).
RecordBuilder MakeAuxtrace(const AuxtraceFields& f, std::vector<std::byte> data);
RecordBuilder MakeAuxtraceInfo(uint32_t type, std::vector<uint64_t> priv);
RecordBuilder MakeSwitch(bool out);
RecordBuilder MakeSwitchCpuWide(bool out, uint32_t next_prev_pid, uint32_t next_prev_tid);

// perf's own records that describe the session (perf record writes them
// since 5.x): a thread map, a cpu map in each of its encodings, and event
// updates of each kind.
RecordBuilder MakeThreadMap(const std::vector<std::pair<uint64_t, std::string>>& threads);
Fields CpuMapCpus(const std::vector<uint16_t>& cpus);            // PERF_CPU_MAP__CPUS
Fields CpuMapMask32(const std::vector<uint32_t>& words);         // PERF_CPU_MAP__MASK, long_size 4
Fields CpuMapMask64(const std::vector<uint64_t>& words);         // PERF_CPU_MAP__MASK, long_size 8
Fields CpuMapRange(bool any_cpu, uint16_t start, uint16_t end);  // PERF_CPU_MAP__RANGE_CPUS
RecordBuilder MakeCpuMap(const Fields& data);
RecordBuilder MakeEventUpdateScale(uint64_t id, double scale);
RecordBuilder MakeEventUpdateString(uint64_t type, uint64_t id,
                                    std::string_view text);  // UNIT, NAME
RecordBuilder MakeEventUpdateCpus(uint64_t id, const Fields& cpu_map_data);

// PERF_RECORD_SAMPLE of `sample` laid out by `attr`.
RecordBuilder MakeSample(const AttrBuilder& attr, const perf::Sample& sample,
                         uint16_t misc = PERF_RECORD_MISC_USER);

// Pipe-layout header records.
RecordBuilder MakeHeaderAttr(const AttrBuilder& attr);
RecordBuilder MakeHeaderFeature(int feature, const Fields& section);
RecordBuilder MakeHeaderTracingData(std::vector<std::byte> data);

// A build-id entry as both the BUILD_ID feature section and the pipe-mode
// HEADER_BUILD_ID record hold it (type 0 in a file, HEADER_BUILD_ID in a pipe).
RecordBuilder MakeBuildIdEntry(uint32_t type, int32_t pid, std::vector<uint8_t> build_id,
                               std::string_view filename, uint16_t misc = PERF_RECORD_MISC_USER);

// PERF_RECORD_COMPRESSED holding `compressed` (see Compress). perf does not
// pad these: the size is the header plus the compressed bytes.
RecordBuilder MakeCompressed(base::Bytes compressed);
// PERF_RECORD_COMPRESSED2: data_size, the data, zero padding to 8 bytes.
RecordBuilder MakeCompressed2(base::Bytes compressed);
// One complete zstd frame of `data`.
std::vector<std::byte> Compress(base::Bytes data, int level = 3);

// One record of every type whose layout perftk knows (kernel and perf's
// own, both MMAP2 unions), with fields of distinct values and, for kernel
// types other than SAMPLE, the sample_id trailer `attr` asks for. Header
// records (HEADER_ATTR, ...) and COMPRESSED are not included.
std::vector<RecordBuilder> EveryRecordType(const AttrBuilder& attr, const perf::Sample& sample,
                                           const perf::SampleId& id);

// Feature sections of the kinds perftk converts between byte orders.
Fields StringFeature(std::string_view text);
Fields NrCpusFeature(uint32_t online, uint32_t available);
Fields CmdlineFeature(const std::vector<std::string>& args);
Fields U64Feature(std::vector<uint64_t> words);  // TOTAL_MEM, SAMPLE_TIME, CLOCKID, ...

// Where the parts of a built file-layout recording lie.
struct BuiltFile {
  std::vector<std::byte> bytes;
  uint64_t attrs_offset = 0;
  uint64_t attr_size = 0;  // per attr, ids section included
  uint64_t data_offset = 0;
  uint64_t data_size = 0;
  uint64_t feature_table_offset = 0;
  std::vector<uint64_t> record_offsets;
  std::vector<uint64_t> ids_offsets;  // per attr
};

// A whole recording: attrs, features, records.
class PerfDataBuilder {
 public:
  PerfDataBuilder& Attr(AttrBuilder attr) {
    attrs_.push_back(std::move(attr));
    return *this;
  }
  PerfDataBuilder& Feature(int feature, Fields section) {
    features_.emplace_back(feature, std::move(section));
    return *this;
  }
  PerfDataBuilder& Record(RecordBuilder record) {
    records_.push_back(std::move(record));
    return *this;
  }
  // Write the feature bitmap as u32 words, as a 32-bit perf does.
  PerfDataBuilder& Bitmap32(bool v) {
    bitmap32_ = v;
    return *this;
  }

  const std::vector<AttrBuilder>& attrs() const { return attrs_; }
  const std::vector<RecordBuilder>& records() const { return records_; }

  // File layout: header | id arrays | attrs | data | feature table | sections.
  // Attrs are padded to the largest attr size (perf writes one size for all,
  // and reads each attr's own size: give attrs of one file the same size).
  BuiltFile BuildFile(Endian endian = kNative) const;
  // Pipe layout: 16-byte header, HEADER_ATTR and HEADER_FEATURE records, records.
  std::vector<std::byte> BuildPipe(Endian endian = kNative) const;

 private:
  std::vector<AttrBuilder> attrs_;
  std::vector<std::pair<int, Fields>> features_;
  std::vector<RecordBuilder> records_;
  bool bitmap32_ = false;
};

// Everything a reader gives for a recording, copied out.
struct ReadBack {
  perf::Header header;
  std::vector<perf::OwnedRecord> records;
  std::vector<std::string> warnings;
};
// Reads `bytes` through Input::FromMemory and PerfDataReader until the end.
absl::StatusOr<ReadBack> ReadAll(base::Bytes bytes, std::string name = "test.data");

std::vector<std::byte> ToBytes(std::string_view text);
std::vector<std::byte> ToBytes(std::initializer_list<uint8_t> bytes);

}  // namespace perftk::testing

#endif  // PERFTK_TESTS_PERF_BUILDER_H_
