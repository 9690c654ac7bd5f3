#include "perf/sample.h"

#include <bit>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"

namespace perftk::perf {

SampleFormat SampleFormat::Of(const EventAttr& attr) {
  SampleFormat f;
  f.sample_type = attr.sample_type();
  f.read_format = attr.read_format();
  f.branch_sample_type = attr.branch_sample_type();
  f.regs_user_mask = attr.sample_regs_user();
  f.regs_intr_mask = attr.sample_regs_intr();
  f.sample_id_all = attr.sample_id_all();
  return f;
}

size_t SampleFormat::trailer_size() const {
  if (!sample_id_all) return 0;
  size_t size = 0;
  for (uint64_t bit : {PERF_SAMPLE_TID, PERF_SAMPLE_TIME, PERF_SAMPLE_ID, PERF_SAMPLE_STREAM_ID,
                       PERF_SAMPLE_CPU, PERF_SAMPLE_IDENTIFIER}) {
    if (has(bit)) size += 8;
  }
  return size;
}

std::optional<size_t> SampleFormat::id_offset_in_sample() const {
  if (has(PERF_SAMPLE_IDENTIFIER)) return 0;
  if (!has(PERF_SAMPLE_ID)) return std::nullopt;
  size_t offset = 0;
  for (uint64_t bit : {PERF_SAMPLE_IP, PERF_SAMPLE_TID, PERF_SAMPLE_TIME, PERF_SAMPLE_ADDR}) {
    if (has(bit)) offset += 8;
  }
  return offset;
}

std::optional<size_t> SampleFormat::id_offset_from_end() const {
  if (!sample_id_all) return std::nullopt;
  if (has(PERF_SAMPLE_IDENTIFIER)) return 8;
  if (!has(PERF_SAMPLE_ID)) return std::nullopt;
  size_t offset = 8;
  if (has(PERF_SAMPLE_CPU)) offset += 8;
  if (has(PERF_SAMPLE_STREAM_ID)) offset += 8;
  return offset;
}

uint64_t ReverseBitfieldOrder(uint64_t value, std::initializer_list<int> widths) {
  uint64_t out = 0;
  int from = 64, to = 0;
  for (int width : widths) {
    from -= width;
    uint64_t mask = width == 64 ? ~0ULL : (1ULL << width) - 1;
    out |= ((value >> from) & mask) << to;
    to += width;
  }
  return out;
}

// A branch stack entry: from, to and the flags word.
constexpr size_t kBranchEntrySize = 3 * sizeof(uint64_t);

namespace {

constexpr std::initializer_list<int> kBranchFlagWidths = {1, 1, 1, 1, 16, 4, 2, 4, 3, 31};

// Largest count field we believe: no sample holds more entries than its
// record can (a record is at most 64 KiB, AUX samples aside).
absl::Status Truncated(const char* field) {
  return absl::DataLossError(absl::StrFormat("sample ends inside its %s field", field));
}

// Reads the fields of a sample written in native (kSwap = false) or the
// other byte order (kSwap = true).
template <bool kSwap>
class SampleDecoder {
 public:
  SampleDecoder(const SampleFormat& format, base::Bytes payload) : f_(format), in_(payload) {}

  absl::StatusOr<Sample> Decode() {
    Sample s;
    if (absl::Status status = DecodeInto(s); !status.ok()) return status;
    return s;
  }

  absl::Status DecodeInto(Sample& s, SampleFieldOffsets* offsets = nullptr,
                          UserStackCopy stack = UserStackCopy::kCopy) {
    SampleFieldOffsets ignored;
    SampleFieldOffsets& at = offsets != nullptr ? *offsets : ignored;
    at = SampleFieldOffsets();
    ResetKeepingMemory(s);
    if (f_.has(PERF_SAMPLE_IDENTIFIER)) s.identifier = U64();
    if (f_.has(PERF_SAMPLE_IP)) {
      at.ip = in_.position();
      s.ip = U64();
    }
    if (f_.has(PERF_SAMPLE_TID)) {
      s.pid = U32();
      s.tid = U32();
    }
    if (f_.has(PERF_SAMPLE_TIME)) s.time = U64();
    if (f_.has(PERF_SAMPLE_ADDR)) {
      at.addr = in_.position();
      s.addr = U64();
    }
    if (f_.has(PERF_SAMPLE_ID)) s.id = U64();
    if (f_.has(PERF_SAMPLE_STREAM_ID)) s.stream_id = U64();
    if (f_.has(PERF_SAMPLE_CPU)) {
      s.cpu = U32();
      s.cpu_reserved = U32();
    }
    if (f_.has(PERF_SAMPLE_PERIOD)) s.period = U64();
    const char* truncated = !in_.ok()                                       ? "fixed"
                            : f_.has(PERF_SAMPLE_READ) && !ReadRead(s.read) ? "READ"
                                                                            : nullptr;
    if (truncated != nullptr) {
      s.callchain.clear();  // not decoded: nothing of an earlier sample's stays
      return Truncated(truncated);
    }
    if (f_.has(PERF_SAMPLE_CALLCHAIN)) {
      uint64_t nr = U64();
      if (!in_.ok() || nr > in_.remaining() / 8) {
        s.callchain.clear();
        return Truncated("CALLCHAIN");
      }
      at.callchain = in_.position();
      // nr fits (checked above): the entries are read in one piece.
      const base::Bytes entries = in_.ReadBytes(nr * 8);
      s.callchain.resize(nr);  // kept by ResetKeepingMemory: no zeroing when it shrinks
      if (nr != 0) std::memcpy(s.callchain.data(), entries.data(), nr * 8);
      if constexpr (kSwap) {
        for (uint64_t& ip : s.callchain) ip = base::ByteSwap(ip);
      }
    }
    if (f_.has(PERF_SAMPLE_RAW)) {
      uint32_t size = U32();
      base::Bytes raw = in_.ReadBytes(size);
      if (!in_.ok()) return Truncated("RAW");
      s.raw.assign(raw.begin(), raw.end());
    }
    if (f_.has(PERF_SAMPLE_BRANCH_STACK) && !ReadBranches(s.branch_stack, at.branch_entries)) {
      return Truncated("BRANCH_STACK");
    }
    if (f_.has(PERF_SAMPLE_REGS_USER) && !ReadRegs(f_.regs_user_mask, s.regs_user)) {
      return Truncated("REGS_USER");
    }
    if (f_.has(PERF_SAMPLE_STACK_USER)) {
      uint64_t size = U64();
      at.stack_user = in_.position();
      base::Bytes data = in_.ReadBytes(size);
      if (size != 0) s.stack_user.dyn_size = U64();
      if (!in_.ok()) return Truncated("STACK_USER");
      at.stack_user_size = std::min<uint64_t>(size, s.stack_user.dyn_size);
      if (stack == UserStackCopy::kCopy) s.stack_user.data.assign(data.begin(), data.end());
    }
    if (f_.sample_type & PERF_SAMPLE_WEIGHT_TYPE) s.weight = U64();
    // perf_mem_data_src has a big-endian variant of its bitfield in
    // perf_event.h that keeps the numeric value: a plain u64 either way.
    if (f_.has(PERF_SAMPLE_DATA_SRC)) s.data_src = U64();
    if (f_.has(PERF_SAMPLE_TRANSACTION)) s.transaction = U64();
    if (f_.has(PERF_SAMPLE_REGS_INTR) && !ReadRegs(f_.regs_intr_mask, s.regs_intr)) {
      return Truncated("REGS_INTR");
    }
    if (f_.has(PERF_SAMPLE_PHYS_ADDR)) s.phys_addr = U64();
    if (f_.has(PERF_SAMPLE_CGROUP)) s.cgroup = U64();
    if (f_.has(PERF_SAMPLE_DATA_PAGE_SIZE)) s.data_page_size = U64();
    if (f_.has(PERF_SAMPLE_CODE_PAGE_SIZE)) s.code_page_size = U64();
    if (f_.has(PERF_SAMPLE_AUX)) {
      uint64_t size = U64();
      base::Bytes aux = in_.ReadBytes(size);
      if (!in_.ok()) return Truncated("AUX");
      s.aux.assign(aux.begin(), aux.end());
    }
    if (!in_.ok()) return Truncated("fixed");
    at.size = in_.position();
    return absl::OkStatus();
  }

 private:
  // Every field back to its default, vectors emptied but not freed. The
  // callchain is left as it is when the format has one: DecodeInto sets its
  // size, and reusing its length saves zeroing what is then overwritten.
  void ResetKeepingMemory(Sample& s) const {
    // A field added to Sample must be reset here too.
    // (22 words of scalars, 9 vectors.)
    static_assert(sizeof(Sample) == 22 * 8 + 9 * sizeof(std::vector<uint64_t>),
                  "Sample changed: update ResetKeepingMemory");
    s.identifier = s.ip = 0;
    s.pid = s.tid = 0;
    s.time = s.addr = s.id = s.stream_id = 0;
    s.cpu = s.cpu_reserved = 0;
    s.period = 0;
    s.read.time_enabled = s.read.time_running = 0;
    s.read.values.clear();
    if (!f_.has(PERF_SAMPLE_CALLCHAIN)) s.callchain.clear();
    s.raw.clear();
    s.branch_stack.hw_idx = 0;
    s.branch_stack.entries.clear();
    s.branch_stack.counters.clear();
    s.regs_user.abi = 0;
    s.regs_user.values.clear();
    s.stack_user.data.clear();
    s.stack_user.dyn_size = 0;
    s.weight = s.data_src = s.transaction = 0;
    s.regs_intr.abi = 0;
    s.regs_intr.values.clear();
    s.phys_addr = s.cgroup = s.data_page_size = s.code_page_size = 0;
    s.aux.clear();
  }

  uint64_t U64() {
    uint64_t v = in_.Read<uint64_t>();
    return kSwap ? base::ByteSwap(v) : v;
  }
  uint32_t U32() {
    uint32_t v = in_.Read<uint32_t>();
    return kSwap ? base::ByteSwap(v) : v;
  }

  bool ReadRead(ReadFormatValues& read) {
    const uint64_t rf = f_.read_format;
    auto read_one = [&](ReadValue& v, bool with_value) {
      if (with_value) v.value = U64();
      if (rf & PERF_FORMAT_ID) v.id = U64();
      if (rf & PERF_FORMAT_LOST) v.lost = U64();
    };
    if (rf & PERF_FORMAT_GROUP) {
      uint64_t nr = U64();
      if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED) read.time_enabled = U64();
      if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING) read.time_running = U64();
      size_t entry = 8 * (1 + ((rf & PERF_FORMAT_ID) != 0) + ((rf & PERF_FORMAT_LOST) != 0));
      if (!in_.ok() || nr > in_.remaining() / entry) return false;
      read.values.resize(nr);
      for (auto& v : read.values) {
        v.value = U64();
        read_one(v, false);
      }
    } else {
      read.values.resize(1);
      read.values[0].value = U64();
      if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED) read.time_enabled = U64();
      if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING) read.time_running = U64();
      read_one(read.values[0], false);
    }
    return in_.ok();
  }

  bool ReadBranches(BranchStack& stack, size_t& entries_at) {
    uint64_t nr = U64();
    if (f_.branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX) stack.hw_idx = U64();
    if (!in_.ok() || nr > in_.remaining() / kBranchEntrySize) return false;
    entries_at = in_.position();
    stack.entries.resize(nr);
    for (auto& e : stack.entries) {
      e.from = U64();
      e.to = U64();
      e.flags = U64();
      if (kSwap) e.flags = ReverseBitfieldOrder(e.flags, kBranchFlagWidths);
    }
    if (f_.branch_sample_type & PERF_SAMPLE_BRANCH_COUNTERS) {
      if (nr > in_.remaining() / 8) return false;
      stack.counters.resize(nr);
      for (auto& c : stack.counters) c = U64();
    }
    return in_.ok();
  }

  bool ReadRegs(uint64_t mask, RegisterDump& regs) {
    regs.abi = U64();
    if (regs.abi != 0) {
      regs.values.resize(std::popcount(mask));
      for (auto& v : regs.values) v = U64();
    }
    return in_.ok();
  }

  const SampleFormat& f_;
  base::ByteCursor in_;
};

}  // namespace

absl::StatusOr<Sample> DecodeSample(const SampleFormat& format, base::Bytes payload) {
  return SampleDecoder<false>(format, payload).Decode();
}

absl::Status DecodeSampleInto(const SampleFormat& format, base::Bytes payload, Sample& sample,
                              SampleFieldOffsets* offsets, UserStackCopy stack) {
  return SampleDecoder<false>(format, payload).DecodeInto(sample, offsets, stack);
}

namespace {

class SizeCounter {
 public:
  template <typename T>
  void Put(T) {
    size_ += sizeof(T);
  }
  void PutBytes(base::Bytes bytes) { size_ += bytes.size(); }
  size_t size() const { return size_; }

 private:
  size_t size_ = 0;
};

// Stores into memory already sized by a SizeCounter pass.
class FieldWriter {
 public:
  explicit FieldWriter(std::byte* at) : at_(at) {}
  template <typename T>
  void Put(T value) {
    std::memcpy(at_, &value, sizeof(T));
    at_ += sizeof(T);
  }
  void PutBytes(base::Bytes bytes) {
    if (bytes.empty()) return;
    std::memcpy(at_, bytes.data(), bytes.size());
    at_ += bytes.size();
  }

 private:
  std::byte* at_;
};

// Writes the fields of a sample to `out`, which counts them (SizeCounter)
// or stores them (FieldWriter).
template <typename Out>
void EncodeFields(const SampleFormat& f, const Sample& s, Out& out) {
  auto u64 = [&out](uint64_t v) { out.Put(v); };
  auto u32 = [&out](uint32_t v) { out.Put(v); };
  if (f.has(PERF_SAMPLE_IDENTIFIER)) u64(s.identifier);
  if (f.has(PERF_SAMPLE_IP)) u64(s.ip);
  if (f.has(PERF_SAMPLE_TID)) {
    u32(s.pid);
    u32(s.tid);
  }
  if (f.has(PERF_SAMPLE_TIME)) u64(s.time);
  if (f.has(PERF_SAMPLE_ADDR)) u64(s.addr);
  if (f.has(PERF_SAMPLE_ID)) u64(s.id);
  if (f.has(PERF_SAMPLE_STREAM_ID)) u64(s.stream_id);
  if (f.has(PERF_SAMPLE_CPU)) {
    u32(s.cpu);
    u32(s.cpu_reserved);
  }
  if (f.has(PERF_SAMPLE_PERIOD)) u64(s.period);
  if (f.has(PERF_SAMPLE_READ)) {
    const uint64_t rf = f.read_format;
    auto tail = [&](const ReadValue& v) {
      if (rf & PERF_FORMAT_ID) u64(v.id);
      if (rf & PERF_FORMAT_LOST) u64(v.lost);
    };
    if (rf & PERF_FORMAT_GROUP) {
      u64(s.read.values.size());
      if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED) u64(s.read.time_enabled);
      if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING) u64(s.read.time_running);
      for (const auto& v : s.read.values) {
        u64(v.value);
        tail(v);
      }
    } else {
      ReadValue v = s.read.values.empty() ? ReadValue{} : s.read.values[0];
      u64(v.value);
      if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED) u64(s.read.time_enabled);
      if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING) u64(s.read.time_running);
      tail(v);
    }
  }
  if (f.has(PERF_SAMPLE_CALLCHAIN)) {
    u64(s.callchain.size());
    for (uint64_t ip : s.callchain) u64(ip);
  }
  if (f.has(PERF_SAMPLE_RAW)) {
    u32(static_cast<uint32_t>(s.raw.size()));
    out.PutBytes(s.raw);
  }
  if (f.has(PERF_SAMPLE_BRANCH_STACK)) {
    u64(s.branch_stack.entries.size());
    if (f.branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX) u64(s.branch_stack.hw_idx);
    for (const auto& e : s.branch_stack.entries) {
      u64(e.from);
      u64(e.to);
      u64(e.flags);
    }
    if (f.branch_sample_type & PERF_SAMPLE_BRANCH_COUNTERS) {
      for (size_t i = 0; i < s.branch_stack.entries.size(); ++i) {
        u64(i < s.branch_stack.counters.size() ? s.branch_stack.counters[i] : 0);
      }
    }
  }
  auto regs = [&](uint64_t mask, const RegisterDump& r) {
    u64(r.abi);
    if (r.abi == 0) return;
    int n = std::popcount(mask);
    for (int i = 0; i < n; ++i) u64(i < static_cast<int>(r.values.size()) ? r.values[i] : 0);
  };
  if (f.has(PERF_SAMPLE_REGS_USER)) regs(f.regs_user_mask, s.regs_user);
  if (f.has(PERF_SAMPLE_STACK_USER)) {
    u64(s.stack_user.data.size());
    out.PutBytes(s.stack_user.data);
    if (!s.stack_user.data.empty()) u64(s.stack_user.dyn_size);
  }
  if (f.sample_type & PERF_SAMPLE_WEIGHT_TYPE) u64(s.weight);
  if (f.has(PERF_SAMPLE_DATA_SRC)) u64(s.data_src);
  if (f.has(PERF_SAMPLE_TRANSACTION)) u64(s.transaction);
  if (f.has(PERF_SAMPLE_REGS_INTR)) regs(f.regs_intr_mask, s.regs_intr);
  if (f.has(PERF_SAMPLE_PHYS_ADDR)) u64(s.phys_addr);
  if (f.has(PERF_SAMPLE_CGROUP)) u64(s.cgroup);
  if (f.has(PERF_SAMPLE_DATA_PAGE_SIZE)) u64(s.data_page_size);
  if (f.has(PERF_SAMPLE_CODE_PAGE_SIZE)) u64(s.code_page_size);
  if (f.has(PERF_SAMPLE_AUX)) {
    u64(s.aux.size());
    out.PutBytes(s.aux);
  }
}

}  // namespace

size_t EncodedSampleSize(const SampleFormat& f, const Sample& s) {
  SizeCounter counter;
  EncodeFields(f, s, counter);
  return counter.size();
}

void EncodeSampleAt(const SampleFormat& f, const Sample& s, std::byte* out) {
  FieldWriter writer(out);
  EncodeFields(f, s, writer);
}

void EncodeSample(const SampleFormat& f, const Sample& s, std::vector<std::byte>& out) {
  const size_t at = out.size();
  out.resize(at + EncodedSampleSize(f, s));
  EncodeSampleAt(f, s, out.data() + at);
}

absl::StatusOr<SampleId> DecodeSampleId(const SampleFormat& f, base::Bytes record) {
  size_t size = f.trailer_size();
  if (record.size() < 8 + size) {
    return absl::DataLossError(absl::StrFormat(
        "record of %u bytes is too small for its %u-byte sample_id trailer", record.size(), size));
  }
  base::ByteCursor in(record.subspan(record.size() - size));
  SampleId id;
  if (!f.sample_id_all) return id;
  if (f.has(PERF_SAMPLE_TID)) {
    id.pid = in.Read<uint32_t>();
    id.tid = in.Read<uint32_t>();
  }
  if (f.has(PERF_SAMPLE_TIME)) id.time = in.Read<uint64_t>();
  if (f.has(PERF_SAMPLE_ID)) id.id = in.Read<uint64_t>();
  if (f.has(PERF_SAMPLE_STREAM_ID)) id.stream_id = in.Read<uint64_t>();
  if (f.has(PERF_SAMPLE_CPU)) {
    id.cpu = in.Read<uint32_t>();
    id.cpu_reserved = in.Read<uint32_t>();
  }
  if (f.has(PERF_SAMPLE_IDENTIFIER)) id.identifier = in.Read<uint64_t>();
  return id;
}

void EncodeSampleId(const SampleFormat& f, const SampleId& id, std::vector<std::byte>& out) {
  if (!f.sample_id_all) return;
  if (f.has(PERF_SAMPLE_TID)) {
    base::Append(out, id.pid);
    base::Append(out, id.tid);
  }
  if (f.has(PERF_SAMPLE_TIME)) base::Append(out, id.time);
  if (f.has(PERF_SAMPLE_ID)) base::Append(out, id.id);
  if (f.has(PERF_SAMPLE_STREAM_ID)) base::Append(out, id.stream_id);
  if (f.has(PERF_SAMPLE_CPU)) {
    base::Append(out, id.cpu);
    base::Append(out, id.cpu_reserved);
  }
  if (f.has(PERF_SAMPLE_IDENTIFIER)) base::Append(out, id.identifier);
}

void OverwriteSampleAddresses(const SampleFieldOffsets& at, const Sample& sample,
                              base::MutableBytes payload) {
  constexpr size_t kAbsent = SampleFieldOffsets::kAbsent;
  std::byte* p = payload.data();
  if (at.ip != kAbsent) base::Store<uint64_t>(p + at.ip, sample.ip);
  if (at.addr != kAbsent) base::Store<uint64_t>(p + at.addr, sample.addr);
  if (at.callchain != kAbsent) {
    std::byte* entry = p + at.callchain;
    for (uint64_t ip : sample.callchain) {
      base::Store<uint64_t>(entry, ip);
      entry += sizeof(uint64_t);
    }
  }
  if (at.branch_entries != kAbsent) {
    std::byte* entry = p + at.branch_entries;
    for (const BranchEntry& branch : sample.branch_stack.entries) {
      base::Store<uint64_t>(entry, branch.from);
      base::Store<uint64_t>(entry + sizeof(uint64_t), branch.to);
      entry += kBranchEntrySize;
    }
  }
}

absl::Status SwapSamplePayload(const SampleFormat& format, base::MutableBytes payload) {
  absl::StatusOr<Sample> sample = SampleDecoder<true>(format, payload).Decode();
  if (!sample.ok()) return sample.status();
  std::vector<std::byte> native;
  native.reserve(payload.size());
  EncodeSample(format, *sample, native);
  // Bytes past the last field (padding) are left as they are. An empty
  // payload or encoding may have a null data(), which memcpy may not see.
  size_t n = std::min(native.size(), payload.size());
  if (n > 0) std::memcpy(payload.data(), native.data(), n);
  return absl::OkStatus();
}

void SwapSampleIdTrailer(const SampleFormat& f, base::MutableBytes record) {
  size_t size = f.trailer_size();
  if (size == 0 || record.size() < 8 + size) return;
  std::byte* p = record.data() + record.size() - size;
  auto pair32 = [&p] {
    base::SwapInPlace<uint32_t>(p);
    base::SwapInPlace<uint32_t>(p + 4);
    p += 8;
  };
  auto u64 = [&p] {
    base::SwapInPlace<uint64_t>(p);
    p += 8;
  };
  if (f.has(PERF_SAMPLE_TID)) pair32();
  if (f.has(PERF_SAMPLE_TIME)) u64();
  if (f.has(PERF_SAMPLE_ID)) u64();
  if (f.has(PERF_SAMPLE_STREAM_ID)) u64();
  if (f.has(PERF_SAMPLE_CPU)) pair32();
  if (f.has(PERF_SAMPLE_IDENTIFIER)) u64();
}

}  // namespace perftk::perf
