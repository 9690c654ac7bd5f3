#include "builder.h"

#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <map>

#include "absl/status/status.h"
#include "perf/input.h"
#include "perf/reader.h"

namespace perftk::testing {

// disabled .. watermark (15 single bits), precise_ip:2, mmap_data ..
// sigtrap (21 single bits), __reserved_1:26.
const std::vector<int> kAttrFlagWidths = [] {
  std::vector<int> widths(15, 1);
  widths.push_back(2);
  widths.insert(widths.end(), 21, 1);
  widths.push_back(26);
  return widths;
}();

// mispred, predicted, in_tx, abort, cycles:16, type:4, spec:2, new_type:4,
// priv:3, reserved:31.
const std::vector<int> kBranchFlagWidths = {1, 1, 1, 1, 16, 4, 2, 4, 3, 31};

void PutInt(std::vector<std::byte>& out, int width, uint64_t value, Endian endian) {
  for (int i = 0; i < width; ++i) {
    int shift = endian == Endian::kLittle ? 8 * i : 8 * (width - 1 - i);
    out.push_back(static_cast<std::byte>((value >> shift) & 0xff));
  }
}

uint64_t ToBigEndianBitfield(uint64_t value, const std::vector<int>& widths) {
  uint64_t out = 0;
  int low = 0;
  for (int width : widths) {
    uint64_t mask = width == 64 ? ~0ULL : (1ULL << width) - 1;
    uint64_t field = (value >> low) & mask;
    out |= field << (64 - low - width);
    low += width;
  }
  return out;
}

Fields& Fields::Int(int width, uint64_t value) {
  Item item;
  item.width = width;
  item.value = value;
  items_.push_back(std::move(item));
  size_ += width;
  return *this;
}

Fields& Fields::Raw(base::Bytes bytes) {
  Item item;
  item.bytes.assign(bytes.begin(), bytes.end());
  items_.push_back(std::move(item));
  size_ += bytes.size();
  return *this;
}

Fields& Fields::Raw(std::string_view text) {
  return Raw(base::Bytes(reinterpret_cast<const std::byte*>(text.data()), text.size()));
}

Fields& Fields::Zeros(size_t n) { return Raw(std::vector<std::byte>(n)); }

Fields& Fields::String(std::string_view text, size_t align) {
  std::vector<std::byte> bytes = ToBytes(text);
  bytes.resize(base::AlignUp(text.size() + 1, align));
  return Raw(bytes);
}

Fields& Fields::PerfString(std::string_view text) {
  std::vector<std::byte> bytes = ToBytes(text);
  bytes.resize(base::AlignUp(text.size() + 1, 64));
  U32(static_cast<uint32_t>(bytes.size()));
  return Raw(bytes);
}

Fields& Fields::Bitfield64(uint64_t value, const std::vector<int>& widths) {
  Item item;
  item.width = 8;
  item.value = value;
  item.bitfield = widths;
  items_.push_back(std::move(item));
  size_ += 8;
  return *this;
}

Fields& Fields::Append(const Fields& other) {
  items_.insert(items_.end(), other.items_.begin(), other.items_.end());
  size_ += other.size_;
  return *this;
}

void Fields::SerializeTo(Endian endian, std::vector<std::byte>& out) const {
  for (const Item& item : items_) {
    if (item.width == 0) {
      out.insert(out.end(), item.bytes.begin(), item.bytes.end());
      continue;
    }
    uint64_t value = item.value;
    if (!item.bitfield.empty() && endian == Endian::kBig) {
      value = ToBigEndianBitfield(value, item.bitfield);
    }
    PutInt(out, item.width, value, endian);
  }
}

std::vector<std::byte> Fields::Serialize(Endian endian) const {
  std::vector<std::byte> out;
  out.reserve(size_);
  SerializeTo(endian, out);
  return out;
}

Fields AttrBuilder::ToFields() const {
  Fields f;
  // Adds a field only while it fits in attr.size; the rest is cut off.
  auto add = [&](int width, uint64_t value) {
    if (f.size() + width > size_) return;
    switch (width) {
      case 2:
        f.U16(static_cast<uint16_t>(value));
        break;
      case 4:
        f.U32(static_cast<uint32_t>(value));
        break;
      default:
        f.U64(value);
        break;
    }
  };
  add(4, type_);
  add(4, size_);
  add(8, config_);
  add(8, sample_period_);
  add(8, sample_type_);
  add(8, read_format_);
  if (f.size() + 8 <= size_) f.Bitfield64(flags_, kAttrFlagWidths);
  add(4, wakeup_events_);
  add(4, bp_type_);
  add(8, config1_);
  add(8, config2_);
  add(8, branch_sample_type_);
  add(8, regs_user_);
  add(4, stack_user_);
  add(4, static_cast<uint32_t>(clockid_));
  add(8, regs_intr_);
  add(4, aux_watermark_);
  add(2, sample_max_stack_);
  add(2, 0);  // __reserved_2
  add(4, aux_sample_size_);
  add(4, 0);  // __reserved_3
  add(8, sig_data_);
  add(8, config3_);
  for (uint64_t word : future_) add(8, word);
  if (f.size() < size_) f.Zeros(size_ - f.size());
  return f;
}

AttrBuilder AttrBuilder::FromNative(const perf::EventAttr& attr) {
  using namespace attr_offset;
  AttrBuilder b;
  b.Type(attr.type())
      .Config(attr.config())
      .SamplePeriod(attr.U64(kSamplePeriod))
      .SampleType(attr.sample_type())
      .ReadFormat(attr.read_format())
      .Flags(attr.flags())
      .WakeupEvents(attr.U32(kWakeupEvents))
      .BpType(attr.U32(kBpType))
      .Config1(attr.config1())
      .Config2(attr.config2())
      .BranchSampleType(attr.branch_sample_type())
      .RegsUser(attr.sample_regs_user())
      .StackUser(attr.sample_stack_user())
      .Clockid(attr.clockid())
      .RegsIntr(attr.sample_regs_intr())
      .AuxWatermark(attr.U32(kAuxWatermark))
      .AuxSampleSize(attr.U32(kAuxSampleSize))
      .SigData(attr.U64(kSigData))
      .Config3(attr.U64(kConfig3))
      .Size(attr.size())
      .Ids(attr.ids());
  if (attr.size() >= kSampleMaxStack + 2) {
    b.SampleMaxStack(base::Load<uint16_t>(attr.bytes().data() + kSampleMaxStack));
  }
  std::vector<uint64_t> future;
  for (size_t at = PERF_ATTR_SIZE_VER8; at + 8 <= attr.size(); at += 8)
    future.push_back(attr.U64(at));
  b.FutureWords(std::move(future));
  return b;
}

perf::EventAttr AttrBuilder::Build() const {
  absl::StatusOr<perf::EventAttr> attr = perf::EventAttr::FromBytes(Serialize(kNative));
  if (!attr.ok()) return perf::EventAttr();
  attr->ids() = ids_;
  return *std::move(attr);
}

namespace {

void RegsFields(Fields& f, uint64_t mask, const perf::RegisterDump& regs) {
  f.U64(regs.abi);
  if (regs.abi == 0) return;
  for (int i = 0; i < std::popcount(mask); ++i) {
    f.U64(i < static_cast<int>(regs.values.size()) ? regs.values[i] : 0);
  }
}

}  // namespace

Fields SampleFields(const AttrBuilder& attr, const perf::Sample& s) {
  const uint64_t type = attr.sample_type();
  const uint64_t rf = attr.read_format();
  auto has = [type](uint64_t bit) { return (type & bit) != 0; };
  Fields f;
  if (has(PERF_SAMPLE_IDENTIFIER)) f.U64(s.identifier);
  if (has(PERF_SAMPLE_IP)) f.U64(s.ip);
  if (has(PERF_SAMPLE_TID)) f.U32(s.pid).U32(s.tid);
  if (has(PERF_SAMPLE_TIME)) f.U64(s.time);
  if (has(PERF_SAMPLE_ADDR)) f.U64(s.addr);
  if (has(PERF_SAMPLE_ID)) f.U64(s.id);
  if (has(PERF_SAMPLE_STREAM_ID)) f.U64(s.stream_id);
  if (has(PERF_SAMPLE_CPU)) f.U32(s.cpu).U32(s.cpu_reserved);
  if (has(PERF_SAMPLE_PERIOD)) f.U64(s.period);
  if (has(PERF_SAMPLE_READ)) {
    auto tail = [&](const perf::ReadValue& v) {
      if (rf & PERF_FORMAT_ID) f.U64(v.id);
      if (rf & PERF_FORMAT_LOST) f.U64(v.lost);
    };
    if (rf & PERF_FORMAT_GROUP) {
      f.U64(s.read.values.size());
      if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED) f.U64(s.read.time_enabled);
      if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING) f.U64(s.read.time_running);
      for (const perf::ReadValue& v : s.read.values) {
        f.U64(v.value);
        tail(v);
      }
    } else {
      perf::ReadValue v = s.read.values.empty() ? perf::ReadValue{} : s.read.values[0];
      f.U64(v.value);
      if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED) f.U64(s.read.time_enabled);
      if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING) f.U64(s.read.time_running);
      tail(v);
    }
  }
  if (has(PERF_SAMPLE_CALLCHAIN)) {
    f.U64(s.callchain.size());
    for (uint64_t ip : s.callchain) f.U64(ip);
  }
  if (has(PERF_SAMPLE_RAW)) f.U32(static_cast<uint32_t>(s.raw.size())).Raw(s.raw);
  if (has(PERF_SAMPLE_BRANCH_STACK)) {
    const uint64_t bst = attr.branch_sample_type();
    f.U64(s.branch_stack.entries.size());
    if (bst & PERF_SAMPLE_BRANCH_HW_INDEX) f.U64(s.branch_stack.hw_idx);
    for (const perf::BranchEntry& e : s.branch_stack.entries) {
      f.U64(e.from).U64(e.to).Bitfield64(e.flags, kBranchFlagWidths);
    }
    if (bst & PERF_SAMPLE_BRANCH_COUNTERS) {
      for (size_t i = 0; i < s.branch_stack.entries.size(); ++i) {
        f.U64(i < s.branch_stack.counters.size() ? s.branch_stack.counters[i] : 0);
      }
    }
  }
  if (has(PERF_SAMPLE_REGS_USER)) RegsFields(f, attr.regs_user(), s.regs_user);
  if (has(PERF_SAMPLE_STACK_USER)) {
    f.U64(s.stack_user.data.size()).Raw(s.stack_user.data);
    if (!s.stack_user.data.empty()) f.U64(s.stack_user.dyn_size);
  }
  // WEIGHT_STRUCT and DATA_SRC have big-endian variants of their unions in
  // perf_event.h that keep the numeric value: one u64 either way.
  if (type & PERF_SAMPLE_WEIGHT_TYPE) f.U64(s.weight);
  if (has(PERF_SAMPLE_DATA_SRC)) f.U64(s.data_src);
  if (has(PERF_SAMPLE_TRANSACTION)) f.U64(s.transaction);
  if (has(PERF_SAMPLE_REGS_INTR)) RegsFields(f, attr.regs_intr(), s.regs_intr);
  if (has(PERF_SAMPLE_PHYS_ADDR)) f.U64(s.phys_addr);
  if (has(PERF_SAMPLE_CGROUP)) f.U64(s.cgroup);
  if (has(PERF_SAMPLE_DATA_PAGE_SIZE)) f.U64(s.data_page_size);
  if (has(PERF_SAMPLE_CODE_PAGE_SIZE)) f.U64(s.code_page_size);
  if (has(PERF_SAMPLE_AUX)) f.U64(s.aux.size()).Raw(s.aux);
  return f;
}

Fields SampleIdFields(const AttrBuilder& attr, const perf::SampleId& id) {
  Fields f;
  if (!attr.sample_id_all()) return f;
  const uint64_t type = attr.sample_type();
  if (type & PERF_SAMPLE_TID) f.U32(id.pid).U32(id.tid);
  if (type & PERF_SAMPLE_TIME) f.U64(id.time);
  if (type & PERF_SAMPLE_ID) f.U64(id.id);
  if (type & PERF_SAMPLE_STREAM_ID) f.U64(id.stream_id);
  if (type & PERF_SAMPLE_CPU) f.U32(id.cpu).U32(id.cpu_reserved);
  if (type & PERF_SAMPLE_IDENTIFIER) f.U64(id.identifier);
  return f;
}

RecordBuilder& RecordBuilder::WithSampleId(const AttrBuilder& attr, const perf::SampleId& id) {
  body_.Append(SampleIdFields(attr, id));
  return *this;
}

Fields RecordBuilder::ToFields() const {
  uint16_t size = size_override_ >= 0 ? static_cast<uint16_t>(size_override_)
                                      : static_cast<uint16_t>(this->size());
  Fields f;
  f.U32(type_).U16(misc_).U16(size).Append(body_);
  return f;
}

std::vector<std::byte> RecordBuilder::Build(Endian endian) const {
  return ToFields().Serialize(endian);
}

std::vector<std::byte> RecordBuilder::BuildWithPayload(Endian endian) const {
  std::vector<std::byte> out = Build(endian);
  out.insert(out.end(), payload_.begin(), payload_.end());
  return out;
}

RecordBuilder MakeMmap(const MmapFields& f, uint16_t misc) {
  RecordBuilder r(PERF_RECORD_MMAP, misc);
  r.U32(f.pid).U32(f.tid).U64(f.start).U64(f.len).U64(f.pgoff).String(f.filename);
  return r;
}

RecordBuilder MakeMmap2(const Mmap2Fields& f, uint16_t misc) {
  RecordBuilder r(PERF_RECORD_MMAP2, misc);
  r.U32(f.pid).U32(f.tid).U64(f.start).U64(f.len).U64(f.pgoff);
  if (!f.build_id.empty()) {
    r.Misc(misc | PERF_RECORD_MISC_MMAP_BUILD_ID);
    r.U8(static_cast<uint8_t>(f.build_id.size())).Zeros(3);
    std::vector<std::byte> id(20);
    for (size_t i = 0; i < f.build_id.size() && i < 20; ++i) id[i] = std::byte{f.build_id[i]};
    r.Raw(id);
  } else {
    r.U32(f.maj).U32(f.min).U64(f.ino).U64(f.ino_generation);
  }
  r.U32(f.prot).U32(f.flags).String(f.filename);
  return r;
}

RecordBuilder MakeComm(uint32_t pid, uint32_t tid, std::string_view comm, bool exec) {
  RecordBuilder r(PERF_RECORD_COMM, exec ? PERF_RECORD_MISC_COMM_EXEC : 0);
  r.U32(pid).U32(tid).String(comm);
  return r;
}

RecordBuilder MakeFork(const ForkFields& f) {
  RecordBuilder r(PERF_RECORD_FORK);
  r.U32(f.pid).U32(f.ppid).U32(f.tid).U32(f.ptid).U64(f.time);
  return r;
}

RecordBuilder MakeExit(const ForkFields& f) {
  RecordBuilder r(PERF_RECORD_EXIT);
  r.U32(f.pid).U32(f.ppid).U32(f.tid).U32(f.ptid).U64(f.time);
  return r;
}

RecordBuilder MakeKsymbol(const KsymbolFields& f) {
  RecordBuilder r(PERF_RECORD_KSYMBOL, PERF_RECORD_MISC_KERNEL);
  r.U64(f.addr).U32(f.len).U16(f.ksym_type).U16(f.flags).String(f.name);
  return r;
}

RecordBuilder MakeTextPoke(uint64_t addr, std::vector<std::byte> old_bytes,
                           std::vector<std::byte> new_bytes) {
  RecordBuilder r(PERF_RECORD_TEXT_POKE, PERF_RECORD_MISC_KERNEL);
  r.U64(addr).U16(static_cast<uint16_t>(old_bytes.size()));
  r.U16(static_cast<uint16_t>(new_bytes.size()));
  std::vector<std::byte> bytes = old_bytes;
  bytes.insert(bytes.end(), new_bytes.begin(), new_bytes.end());
  bytes.resize(base::AlignUp(bytes.size() + 4, 8) - 4);
  r.Raw(bytes);
  return r;
}

RecordBuilder MakeAux(uint64_t aux_offset, uint64_t aux_size, uint64_t flags) {
  RecordBuilder r(PERF_RECORD_AUX);
  r.U64(aux_offset).U64(aux_size).U64(flags);
  return r;
}

RecordBuilder MakeAuxtrace(const AuxtraceFields& f, std::vector<std::byte> data) {
  RecordBuilder r(PERF_RECORD_AUXTRACE);
  r.U64(data.size()).U64(f.offset).U64(f.reference).U32(f.idx).U32(f.tid).U32(f.cpu).U32(0);
  r.TrailingPayload(std::move(data));
  return r;
}

RecordBuilder MakeAuxtraceInfo(uint32_t type, std::vector<uint64_t> priv) {
  RecordBuilder r(PERF_RECORD_AUXTRACE_INFO);
  r.U32(type).U32(0);
  for (uint64_t word : priv) r.U64(word);
  return r;
}

RecordBuilder MakeSwitch(bool out) {
  return RecordBuilder(PERF_RECORD_SWITCH, out ? PERF_RECORD_MISC_SWITCH_OUT : 0);
}

RecordBuilder MakeSwitchCpuWide(bool out, uint32_t next_prev_pid, uint32_t next_prev_tid) {
  RecordBuilder r(PERF_RECORD_SWITCH_CPU_WIDE, out ? PERF_RECORD_MISC_SWITCH_OUT : 0);
  r.U32(next_prev_pid).U32(next_prev_tid);
  return r;
}

RecordBuilder MakeThreadMap(const std::vector<std::pair<uint64_t, std::string>>& threads) {
  RecordBuilder r(PERF_RECORD_THREAD_MAP);
  r.U64(threads.size());
  for (const auto& [pid, comm] : threads) {
    std::vector<std::byte> name = ToBytes(comm);
    name.resize(16);
    r.U64(pid).Raw(name);
  }
  return r;
}

Fields CpuMapCpus(const std::vector<uint16_t>& cpus) {
  Fields f;
  f.U16(0).U16(static_cast<uint16_t>(cpus.size()));
  for (uint16_t cpu : cpus) f.U16(cpu);
  return f;
}

Fields CpuMapMask32(const std::vector<uint32_t>& words) {
  Fields f;
  f.U16(1).U16(static_cast<uint16_t>(words.size())).U16(4);
  for (uint32_t word : words) f.U32(word);
  return f;
}

Fields CpuMapMask64(const std::vector<uint64_t>& words) {
  Fields f;
  f.U16(1).U16(static_cast<uint16_t>(words.size())).U16(8).Zeros(4);
  for (uint64_t word : words) f.U64(word);
  return f;
}

Fields CpuMapRange(bool any_cpu, uint16_t start, uint16_t end) {
  Fields f;
  f.U16(2).U8(any_cpu ? 1 : 0).U8(0).U16(start).U16(end);
  return f;
}

namespace {

// Pads a record body to a multiple of 8 bytes, as perf sizes these records.
RecordBuilder& PadTo8(RecordBuilder& r, size_t body_size) {
  r.Zeros(base::AlignUp(body_size, 8) - body_size);
  return r;
}

}  // namespace

RecordBuilder MakeCpuMap(const Fields& data) {
  RecordBuilder r(PERF_RECORD_CPU_MAP);
  r.Body(data);
  return PadTo8(r, data.size());
}

RecordBuilder MakeEventUpdateScale(uint64_t id, double scale) {
  RecordBuilder r(PERF_RECORD_EVENT_UPDATE);
  uint64_t bits;
  std::memcpy(&bits, &scale, 8);
  r.U64(1).U64(id).U64(bits);
  return r;
}

RecordBuilder MakeEventUpdateString(uint64_t type, uint64_t id, std::string_view text) {
  RecordBuilder r(PERF_RECORD_EVENT_UPDATE);
  r.U64(type).U64(id).String(text);
  return r;
}

RecordBuilder MakeEventUpdateCpus(uint64_t id, const Fields& cpu_map_data) {
  RecordBuilder r(PERF_RECORD_EVENT_UPDATE);
  r.U64(3).U64(id).Body(cpu_map_data);
  return PadTo8(r, 16 + cpu_map_data.size());
}

RecordBuilder MakeSample(const AttrBuilder& attr, const perf::Sample& sample, uint16_t misc) {
  RecordBuilder r(PERF_RECORD_SAMPLE, misc);
  r.Body(SampleFields(attr, sample));
  return r;
}

RecordBuilder MakeHeaderAttr(const AttrBuilder& attr) {
  RecordBuilder r(PERF_RECORD_HEADER_ATTR);
  r.Body(attr.ToFields());
  for (uint64_t id : attr.ids()) r.U64(id);
  return r;
}

RecordBuilder MakeHeaderFeature(int feature, const Fields& section) {
  RecordBuilder r(PERF_RECORD_HEADER_FEATURE);
  r.U64(static_cast<uint64_t>(feature)).Body(section);
  return r;
}

RecordBuilder MakeHeaderTracingData(std::vector<std::byte> data) {
  RecordBuilder r(PERF_RECORD_HEADER_TRACING_DATA);
  r.U32(static_cast<uint32_t>(data.size())).U32(0);
  r.TrailingPayload(std::move(data));
  return r;
}

RecordBuilder MakeBuildIdEntry(uint32_t type, int32_t pid, std::vector<uint8_t> build_id,
                               std::string_view filename, uint16_t misc) {
  RecordBuilder r(type, misc | PERF_RECORD_MISC_BUILD_ID_SIZE);
  r.U32(static_cast<uint32_t>(pid));
  std::vector<std::byte> id(24);
  for (size_t i = 0; i < build_id.size() && i < 20; ++i) id[i] = std::byte{build_id[i]};
  id[20] = static_cast<std::byte>(std::min<size_t>(build_id.size(), 20));  // size, then 3 pad
  r.Raw(id);
  r.String(filename, 64);
  return r;
}

RecordBuilder MakeCompressed(base::Bytes compressed) {
  RecordBuilder r(PERF_RECORD_COMPRESSED);
  r.Raw(compressed);
  return r;
}

RecordBuilder MakeCompressed2(base::Bytes compressed) {
  RecordBuilder r(PERF_RECORD_COMPRESSED2);
  r.U64(compressed.size()).Raw(compressed);
  r.Zeros(base::AlignUp(compressed.size(), 8) - compressed.size());
  return r;
}

std::vector<std::byte> Compress(base::Bytes data, int level) {
  std::vector<std::byte> out(ZSTD_compressBound(data.size()));
  size_t n = ZSTD_compress(out.data(), out.size(), data.data(), data.size(), level);
  if (ZSTD_isError(n)) return {};
  out.resize(n);
  return out;
}

std::vector<RecordBuilder> EveryRecordType(const AttrBuilder& attr, const perf::Sample& sample,
                                           const perf::SampleId& id) {
  std::vector<RecordBuilder> r;
  r.push_back(MakeMmap({.pid = 1,
                        .tid = 2,
                        .start = 0x400000,
                        .len = 0x1000,
                        .pgoff = 0x2000,
                        .filename = "/usr/bin/true"}));
  r.push_back(RecordBuilder(PERF_RECORD_LOST).U64(0x1d).U64(12345));
  r.push_back(MakeComm(1, 2, "true", /*exec=*/true));
  r.push_back(MakeExit({.pid = 1, .ppid = 3, .tid = 2, .ptid = 4, .time = 0x1234567890}));
  r.push_back(RecordBuilder(PERF_RECORD_THROTTLE).U64(111).U64(0x1d).U64(0x5eed));
  r.push_back(RecordBuilder(PERF_RECORD_UNTHROTTLE).U64(222).U64(0x1d).U64(0x5eed));
  r.push_back(MakeFork({.pid = 5, .ppid = 1, .tid = 6, .ptid = 2, .time = 0x9876543210}));
  r.push_back(RecordBuilder(PERF_RECORD_READ).U32(1).U32(2).U64(100).U64(0x1d));
  r.push_back(MakeSample(attr, sample));
  r.push_back(MakeMmap2({.pid = 1,
                         .tid = 2,
                         .start = 0x7f0000000000,
                         .len = 0x21000,
                         .pgoff = 0x1000,
                         .maj = 8,
                         .min = 1,
                         .ino = 0x123456789,
                         .ino_generation = 7,
                         .prot = 5,
                         .flags = 2,
                         .filename = "/usr/lib/x86_64-linux-gnu/libc.so.6"}));
  r.push_back(MakeMmap2(
      {.pid = 1,
       .tid = 2,
       .start = 0x7f1000000000,
       .len = 0x3000,
       .pgoff = 0,
       .build_id = {0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16},
       .prot = 5,
       .flags = 2,
       .filename = "/usr/lib/libm.so.6"}));
  r.push_back(MakeAux(0x10000, 0x8000, 1));
  r.push_back(RecordBuilder(PERF_RECORD_ITRACE_START).U32(1).U32(2));
  r.push_back(RecordBuilder(PERF_RECORD_LOST_SAMPLES).U64(77));
  r.push_back(MakeSwitch(/*out=*/true));
  r.push_back(MakeSwitchCpuWide(/*out=*/false, 10, 11));
  r.push_back(RecordBuilder(PERF_RECORD_NAMESPACES)
                  .U32(1)
                  .U32(2)
                  .U64(2)
                  .U64(4)
                  .U64(0xf0000001)
                  .U64(4)
                  .U64(0xf0000002));
  r.push_back(MakeKsymbol({.addr = 0xffffffffc0001000,
                           .len = 0x80,
                           .ksym_type = 1,
                           .flags = 0,
                           .name = "bpf_prog_6deef7357e7b4530_sd_fw"}));
  std::vector<std::byte> tag = ToBytes({1, 2, 3, 4, 5, 6, 7, 8});
  r.push_back(RecordBuilder(PERF_RECORD_BPF_EVENT).U16(1).U16(0).U32(42).Raw(tag));
  r.push_back(RecordBuilder(PERF_RECORD_CGROUP).U64(0x1234).String("/user.slice"));
  r.push_back(MakeTextPoke(0xffffffff81000000, ToBytes({0x0f, 0x1f, 0x44, 0x00, 0x00}),
                           ToBytes({0xe9, 0x01, 0x02, 0x03, 0x04})));
  r.push_back(RecordBuilder(PERF_RECORD_AUX_OUTPUT_HW_ID).U64(3));
  r.push_back(RecordBuilder(PERF_RECORD_CALLCHAIN_DEFERRED)
                  .U64(0xc00c1e)
                  .U64(2)
                  .U64(0x401000)
                  .U64(0x402000));
  for (RecordBuilder& record : r) {
    if (record.type() != PERF_RECORD_SAMPLE) record.WithSampleId(attr, id);
  }

  std::vector<std::byte> name(64);
  name[0] = std::byte{'x'};
  r.push_back(RecordBuilder(PERF_RECORD_HEADER_EVENT_TYPE).U64(9).Raw(name));
  r.push_back(RecordBuilder(PERF_RECORD_FINISHED_ROUND));
  r.push_back(RecordBuilder(PERF_RECORD_FINISHED_INIT));
  r.push_back(RecordBuilder(PERF_RECORD_ID_INDEX).U64(1).U64(0x1d).U64(0).U64(3).U64(1001));
  r.push_back(MakeAuxtraceInfo(3, {0x1111, 0x2222, 0x3333}));
  r.push_back(MakeAuxtrace({.offset = 0x4000, .reference = 0xabcdef, .idx = 1, .tid = 2, .cpu = 3},
                           ToBytes({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})));
  std::vector<std::byte> msg(64);
  msg[0] = std::byte{'e'};
  r.push_back(RecordBuilder(PERF_RECORD_AUXTRACE_ERROR)
                  .U32(1)
                  .U32(2)
                  .U32(3)
                  .U32(4)
                  .U32(5)
                  .U32(0)
                  .U64(0x401000)
                  .U64(999)
                  .Raw(msg)
                  .U32(7)
                  .U32(8));
  r.push_back(RecordBuilder(PERF_RECORD_STAT_CONFIG).U64(1).U64(0).U64(1));
  r.push_back(RecordBuilder(PERF_RECORD_STAT).U64(0x1d).U32(1).U32(2).U64(10).U64(20).U64(30));
  r.push_back(RecordBuilder(PERF_RECORD_STAT_ROUND).U64(1).U64(5555));
  r.push_back(RecordBuilder(PERF_RECORD_TIME_CONV)
                  .U64(31)
                  .U64(1000)
                  .U64(7)
                  .U64(8)
                  .U64(~0ULL)
                  .U8(1)
                  .U8(1)
                  .Zeros(6));
  r.push_back(MakeThreadMap({{1234, "perf-exec"}, {1235, "a-very-long-thread-name"}}));
  r.push_back(MakeCpuMap(CpuMapCpus({0, 1, 5})));
  r.push_back(MakeCpuMap(CpuMapMask32({0x0000000f, 0x80000000})));
  r.push_back(MakeCpuMap(CpuMapMask64({0x00000000000000ff, 0x8000000000000001})));
  r.push_back(MakeCpuMap(CpuMapRange(true, 0, 7)));
  r.push_back(MakeEventUpdateString(0, 0x1d, "msr/tsc/"));  // UNIT
  r.push_back(MakeEventUpdateScale(0x1d, 2.5));
  r.push_back(MakeEventUpdateString(2, 0x1d, "cpu-clock"));  // NAME
  r.push_back(MakeEventUpdateCpus(0x1d, CpuMapCpus({2, 3})));
  r.push_back(MakeEventUpdateCpus(0x1d, CpuMapMask64({0x3})));
  // Unknown types pass through with only their header converted.
  r.push_back(RecordBuilder(200).Raw(ToBytes({9, 9, 9, 9, 9, 9, 9, 9})));
  return r;
}

Fields StringFeature(std::string_view text) {
  Fields f;
  f.PerfString(text);
  return f;
}

Fields NrCpusFeature(uint32_t online, uint32_t available) {
  Fields f;
  f.U32(online).U32(available);
  return f;
}

Fields CmdlineFeature(const std::vector<std::string>& args) {
  Fields f;
  f.U32(static_cast<uint32_t>(args.size()));
  for (const std::string& arg : args) f.PerfString(arg);
  return f;
}

Fields U64Feature(std::vector<uint64_t> words) {
  Fields f;
  for (uint64_t word : words) f.U64(word);
  return f;
}

namespace {

constexpr uint64_t kMagicValue = 0x32454c4946524550ULL;  // "PERFILE2" on little-endian

// Features in bit order, as the table lists them.
std::map<int, const Fields*> SortedFeatures(const std::vector<std::pair<int, Fields>>& features) {
  std::map<int, const Fields*> sorted;
  for (const auto& [bit, section] : features) sorted[bit] = &section;
  return sorted;
}

}  // namespace

BuiltFile PerfDataBuilder::BuildFile(Endian endian) const {
  constexpr uint64_t kHeaderSize = 104;
  BuiltFile built;
  std::vector<std::byte> body;  // everything after the header
  auto here = [&] { return kHeaderSize + body.size(); };

  for (const AttrBuilder& attr : attrs_) {
    built.ids_offsets.push_back(here());
    for (uint64_t id : attr.ids()) PutInt(body, 8, id, endian);
  }
  uint32_t max_attr = PERF_ATTR_SIZE_VER0;
  for (const AttrBuilder& attr : attrs_) max_attr = std::max(max_attr, attr.size());
  built.attr_size = max_attr + 16;
  built.attrs_offset = here();
  for (size_t i = 0; i < attrs_.size(); ++i) {
    std::vector<std::byte> attr = attrs_[i].Serialize(endian);
    attr.resize(max_attr);
    body.insert(body.end(), attr.begin(), attr.end());
    PutInt(body, 8, built.ids_offsets[i], endian);
    PutInt(body, 8, 8 * attrs_[i].ids().size(), endian);
  }
  built.data_offset = here();
  for (const RecordBuilder& record : records_) {
    built.record_offsets.push_back(here());
    std::vector<std::byte> bytes = record.BuildWithPayload(endian);
    body.insert(body.end(), bytes.begin(), bytes.end());
  }
  built.data_size = here() - built.data_offset;

  std::map<int, const Fields*> features = SortedFeatures(features_);
  built.feature_table_offset = here();
  uint64_t section_offset = here() + 16 * features.size();
  for (const auto& [bit, section] : features) {
    PutInt(body, 8, section_offset, endian);
    PutInt(body, 8, section->size(), endian);
    section_offset += section->size();
  }
  for (const auto& [bit, section] : features) section->SerializeTo(endian, body);

  std::vector<std::byte>& out = built.bytes;
  PutInt(out, 8, kMagicValue, endian);
  PutInt(out, 8, kHeaderSize, endian);
  PutInt(out, 8, built.attr_size, endian);
  PutInt(out, 8, built.attrs_offset, endian);
  PutInt(out, 8, built.attr_size * attrs_.size(), endian);
  PutInt(out, 8, built.data_offset, endian);
  PutInt(out, 8, built.data_size, endian);
  PutInt(out, 8, 0, endian);  // event_types, unused since 2012
  PutInt(out, 8, 0, endian);
  uint64_t bitmap[4] = {0, 0, 0, 0};
  for (const auto& [bit, section] : features) bitmap[bit / 64] |= 1ULL << (bit % 64);
  for (uint64_t word : bitmap) {
    if (bitmap32_) {
      PutInt(out, 4, word & 0xffffffff, endian);
      PutInt(out, 4, word >> 32, endian);
    } else {
      PutInt(out, 8, word, endian);
    }
  }
  out.insert(out.end(), body.begin(), body.end());
  return built;
}

std::vector<std::byte> PerfDataBuilder::BuildPipe(Endian endian) const {
  std::vector<std::byte> out;
  PutInt(out, 8, kMagicValue, endian);
  PutInt(out, 8, 16, endian);
  auto add = [&](const RecordBuilder& record) {
    std::vector<std::byte> bytes = record.BuildWithPayload(endian);
    out.insert(out.end(), bytes.begin(), bytes.end());
  };
  for (const AttrBuilder& attr : attrs_) add(MakeHeaderAttr(attr));
  for (const auto& [bit, section] : SortedFeatures(features_))
    add(MakeHeaderFeature(bit, *section));
  for (const RecordBuilder& record : records_) add(record);
  return out;
}

absl::StatusOr<ReadBack> ReadAll(base::Bytes bytes, std::string name) {
  absl::StatusOr<std::unique_ptr<perf::PerfDataReader>> reader =
      perf::PerfDataReader::FromInput(perf::Input::FromMemory(bytes, std::move(name)));
  if (!reader.ok()) return reader.status();
  ReadBack back;
  while (true) {
    absl::StatusOr<std::optional<perftk::perf::Record>> record = (*reader)->Next();
    if (!record.ok()) return record.status();
    if (!*record) break;
    back.records.emplace_back(**record);
  }
  back.header = (*reader)->header();
  back.warnings = (*reader)->warnings();
  return back;
}

std::vector<std::byte> ToBytes(std::string_view text) {
  std::vector<std::byte> out(text.size());
  std::memcpy(out.data(), text.data(), text.size());
  return out;
}

std::vector<std::byte> ToBytes(std::initializer_list<uint8_t> bytes) {
  std::vector<std::byte> out;
  for (uint8_t b : bytes) out.push_back(std::byte{b});
  return out;
}

}  // namespace perftk::testing
