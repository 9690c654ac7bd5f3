#include "recording_writer.h"

#include <algorithm>
#include <cstring>

#include "cpu_tracer.h"
#include "perf/record.h"
#include "perf/sample.h"
#include "perftk/perf_abi.h"

namespace perftk::etm_gen {
namespace {

constexpr uint64_t kMagicEtmV4 = 0x4040404040404040ULL;
constexpr uint64_t kMagicEte = 0x5050505050505050ULL;
constexpr uint32_t kAuxtraceCsEtm = 3;
constexpr uint64_t kEtmOptCtxtId = 1ULL << 14;
constexpr uint64_t kEtmOptTs = 1ULL << 28;
constexpr uint32_t kTrcConfigCid = 1u << 6;
constexpr uint32_t kTrcConfigTs = 1u << 11;
// Trace unit identification as a Cortex-A53-class ETMv4 reports it (the
// values of the public simpleperf recording): 32-bit context id, 64-bit
// addresses, no speculation (TRCIDR8 = 0).
constexpr uint32_t kTrcIdr0 = 0x28000ea1;
constexpr uint32_t kTrcIdr1 = 0x4100f422;
constexpr uint32_t kTrcIdr2 = 0x20001088;
constexpr uint32_t kTrcAuthStatus = 0x8c;
// An ETE 1.0 (TRCDEVARCH.ARCHVER 5, REVISION 0) reports no version in
// TRCIDR1.
constexpr uint32_t kEteTrcIdr1 = 0x4100fff0;
constexpr uint32_t kEteTrcDevArch = 0x47705a13;
constexpr uint32_t kProtRx = 5;  // PROT_READ | PROT_EXEC
constexpr uint32_t kMapPrivate = 2;

class Body {
 public:
  Body& U32(uint32_t v) { return Raw(&v, 4); }
  Body& U64(uint64_t v) { return Raw(&v, 8); }
  Body& Raw(const void* p, size_t n) {
    const auto* b = static_cast<const std::byte*>(p);
    bytes.insert(bytes.end(), b, b + n);
    return *this;
  }
  Body& String(const std::string& s) {
    Raw(s.data(), s.size());
    bytes.resize(bytes.size() + 8 - s.size() % 8, std::byte{0});
    return *this;
  }
  std::vector<std::byte> bytes;
};

uint64_t PageAlign(uint64_t size) { return (size + 0xfff) & ~uint64_t{0xfff}; }

}  // namespace

std::vector<uint64_t> CsEtmInfoWords(uint32_t nr_cpus, bool timestamps, bool ete) {
  std::vector<uint64_t> words = {1, (uint64_t{kCsEtmPmuType} << 32) | nr_cpus, 0};
  const uint32_t configr = kTrcConfigCid | (timestamps ? kTrcConfigTs : 0u);
  for (uint32_t cpu = 0; cpu < nr_cpus; ++cpu) {
    if (ete) {
      words.insert(words.end(), {kMagicEte, cpu, 8, configr, TraceIdOfCpu(cpu), kTrcIdr0,
                                 kEteTrcIdr1, kTrcIdr2, 0, kTrcAuthStatus, kEteTrcDevArch});
    } else {
      words.insert(words.end(), {kMagicEtmV4, cpu, 7, configr, TraceIdOfCpu(cpu), kTrcIdr0,
                                 kTrcIdr1, kTrcIdr2, 0, kTrcAuthStatus});
    }
  }
  return words;
}

absl::StatusOr<std::unique_ptr<RecordingWriter>> RecordingWriter::Create(
    const std::string& path, const RecordingLayout& layout) {
  std::unique_ptr<RecordingWriter> self(new RecordingWriter(layout));
  // The attr size perf 6.1 (Debian 12) reads; it refuses larger ones.
  const std::vector<std::byte> zeros(PERF_ATTR_SIZE_VER7);
  perf::EventAttr attr = *perf::EventAttr::FromBytes(zeros);
  attr.SetU32(attr_offset::kType, kCsEtmPmuType);
  attr.SetU64(attr_offset::kConfig, kEtmOptCtxtId | (layout.timestamps ? kEtmOptTs : 0));
  attr.SetU64(attr_offset::kSamplePeriod, 1);
  attr.set_sample_type(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
                       PERF_SAMPLE_IDENTIFIER);
  attr.SetU64(attr_offset::kFlags, (1ULL << kAttrFlagSampleIdAll) | (1ULL << 5) /*exclude_hv*/);
  for (uint32_t cpu = 0; cpu < layout.nr_cpus; ++cpu) attr.ids().push_back(100 + cpu);
  self->header_.events = perf::EventList({attr});
  absl::StatusOr<std::unique_ptr<perf::PerfDataWriter>> writer =
      perf::PerfDataWriter::Create(path, perf::DataLayout::kFile, self->header_);
  if (!writer.ok()) return writer.status();
  self->writer_ = std::move(*writer);
  if (absl::Status s = self->WriteHeaderRecords(); !s.ok()) return s;
  return self;
}

absl::Status RecordingWriter::Write(uint32_t type, uint16_t misc, std::vector<std::byte> body,
                                    uint32_t cpu, int32_t pid, int32_t tid, uint64_t time,
                                    bool sample_id, const std::vector<uint8_t>* payload) {
  if (sample_id) {
    perf::SampleId id;
    id.pid = static_cast<uint32_t>(pid);
    id.tid = static_cast<uint32_t>(tid);
    id.time = time;
    id.cpu = cpu;
    id.identifier = 100 + cpu;
    perf::EncodeSampleId(header_.events.format(0), id, body);
  }
  absl::StatusOr<std::vector<std::byte>> bytes = perf::MakeRecordBytes(type, misc, body);
  if (!bytes.ok()) return bytes.status();
  base::Bytes trailing;
  if (payload != nullptr) trailing = base::AsBytes(payload->data(), payload->size());
  return writer_->WriteBytes(*bytes, trailing);
}

absl::Status RecordingWriter::WriteHeaderRecords() {
  for (const ProcessMapping& p : layout_.processes) {
    for (int32_t tid : p.tids) {
      Body comm;
      comm.U32(static_cast<uint32_t>(p.pid)).U32(static_cast<uint32_t>(tid)).String(p.comm);
      if (absl::Status s = Write(PERF_RECORD_COMM, 0, comm.bytes, 0, p.pid, tid, 1); !s.ok()) {
        return s;
      }
    }
    if (layout_.user_binary.empty()) continue;
    Body mmap;
    mmap.U32(static_cast<uint32_t>(p.pid)).U32(static_cast<uint32_t>(p.pid));
    mmap.U64(p.base).U64(PageAlign(layout_.user_size)).U64(0);
    mmap.U32(8).U32(1).U64(4242).U64(0).U32(kProtRx).U32(kMapPrivate);
    mmap.String(layout_.user_binary);
    if (absl::Status s =
            Write(PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, mmap.bytes, 0, p.pid, p.pid, 2);
        !s.ok()) {
      return s;
    }
  }
  if (!layout_.kernel_image.empty()) {
    Body mmap;
    mmap.U32(0xffffffffu).U32(0);
    mmap.U64(layout_.kernel_base).U64(PageAlign(layout_.kernel_size)).U64(0);
    mmap.U32(8).U32(1).U64(4243).U64(0).U32(kProtRx).U32(kMapPrivate);
    mmap.String(layout_.kernel_image);
    if (absl::Status s = Write(PERF_RECORD_MMAP2, PERF_RECORD_MISC_KERNEL, mmap.bytes, 0, -1, 0, 2);
        !s.ok()) {
      return s;
    }
  }
  if (!layout_.kernel_mmap_name.empty()) {
    Body mmap;
    mmap.U32(0xffffffffu).U32(0);
    mmap.U64(layout_.kernel_base).U64(PageAlign(layout_.kernel_size)).U64(layout_.kernel_pgoff);
    uint16_t misc = PERF_RECORD_MISC_KERNEL;
    if (layout_.kernel_build_id.empty()) {
      mmap.U32(0).U32(0).U64(0).U64(0);
    } else {
      std::string id = layout_.kernel_build_id;
      const uint8_t size_and_reserved[4] = {static_cast<uint8_t>(id.size()), 0, 0, 0};
      id.resize(20, '\0');
      mmap.Raw(size_and_reserved, 4).Raw(id.data(), id.size());
      misc |= PERF_RECORD_MISC_MMAP_BUILD_ID;
    }
    mmap.U32(kProtRx).U32(kMapPrivate);
    mmap.String(layout_.kernel_mmap_name);
    if (absl::Status s = Write(PERF_RECORD_MMAP2, misc, mmap.bytes, 0, -1, 0, 2); !s.ok()) {
      return s;
    }
  }
  for (const RecordingLayout::Module& module : layout_.modules) {
    Body mmap;
    mmap.U32(0xffffffffu).U32(0);
    mmap.U64(module.base).U64(PageAlign(module.size)).U64(0);
    std::string id = module.build_id;
    id.resize(20, '\0');
    const uint8_t size_and_reserved[4] = {20, 0, 0, 0};
    mmap.Raw(size_and_reserved, 4).Raw(id.data(), id.size());
    mmap.U32(kProtRx).U32(kMapPrivate);
    mmap.String(module.path);
    if (absl::Status s =
            Write(PERF_RECORD_MMAP2, PERF_RECORD_MISC_KERNEL | PERF_RECORD_MISC_MMAP_BUILD_ID,
                  mmap.bytes, 0, -1, 0, 2);
        !s.ok()) {
      return s;
    }
  }
  Body info;
  info.U32(kAuxtraceCsEtm).U32(0);
  for (uint64_t w : CsEtmInfoWords(layout_.nr_cpus, layout_.timestamps, layout_.ete)) {
    info.U64(w);
  }
  return Write(PERF_RECORD_AUXTRACE_INFO, 0, info.bytes, 0, 0, 0, 0, /*sample_id=*/false);
}

absl::Status RecordingWriter::StartCpu(uint32_t cpu, int32_t pid, int32_t tid, uint64_t time) {
  Body body;
  body.U32(static_cast<uint32_t>(pid)).U32(static_cast<uint32_t>(tid));
  return Write(PERF_RECORD_ITRACE_START, 0, body.bytes, cpu, pid, tid, time);
}

absl::Status RecordingWriter::AddMapping(int32_t pid, int32_t tid, const FileMapping& mapping,
                                         uint64_t time) {
  Body mmap;
  mmap.U32(static_cast<uint32_t>(pid)).U32(static_cast<uint32_t>(tid));
  mmap.U64(mapping.address).U64(mapping.length).U64(mapping.pgoff);
  uint16_t misc = PERF_RECORD_MISC_USER;
  if (mapping.build_id.empty()) {
    mmap.U32(8).U32(1).U64(4244).U64(0);
  } else {
    std::string id = mapping.build_id;
    const uint8_t size_and_reserved[4] = {static_cast<uint8_t>(std::min<size_t>(id.size(), 20)), 0,
                                          0, 0};
    id.resize(20, '\0');
    mmap.Raw(size_and_reserved, 4).Raw(id.data(), id.size());
    misc |= PERF_RECORD_MISC_MMAP_BUILD_ID;
  }
  mmap.U32(kProtRx).U32(kMapPrivate);
  mmap.String(mapping.path);
  return Write(PERF_RECORD_MMAP2, misc, mmap.bytes, 0, pid, tid, time);
}

absl::Status RecordingWriter::SwitchIn(uint32_t cpu, int32_t pid, int32_t tid, int32_t prev_pid,
                                       int32_t prev_tid, uint64_t time) {
  Body body;
  body.U32(static_cast<uint32_t>(prev_pid)).U32(static_cast<uint32_t>(prev_tid));
  return Write(PERF_RECORD_SWITCH_CPU_WIDE, 0, body.bytes, cpu, pid, tid, time);
}

absl::Status RecordingWriter::AddBuffer(uint32_t cpu, uint64_t time,
                                        const std::vector<uint8_t>& trace, bool raw) {
  uint64_t& offset = aux_offset_[cpu];
  Body aux;
  aux.U64(offset).U64(trace.size()).U64(raw ? 0x100 : 0);
  if (absl::Status s = Write(PERF_RECORD_AUX, 0, aux.bytes, cpu, -1, -1, time); !s.ok()) return s;
  // perf pads AUXTRACE data to 8 bytes; the AUX record gives the real size.
  std::vector<uint8_t> padded = trace;
  padded.resize((trace.size() + 7) / 8 * 8, 0);
  Body auxtrace;
  auxtrace.U64(padded.size()).U64(offset).U64(time);
  auxtrace.U32(cpu).U32(0xffffffffu).U32(cpu).U32(0);
  if (absl::Status s = Write(PERF_RECORD_AUXTRACE, 0, auxtrace.bytes, cpu, 0, 0, 0,
                             /*sample_id=*/false, &padded);
      !s.ok()) {
    return s;
  }
  offset += trace.size();
  trace_bytes_ += trace.size();
  return absl::OkStatus();
}

absl::Status RecordingWriter::Finish() { return writer_->Finish(); }

}  // namespace perftk::etm_gen
