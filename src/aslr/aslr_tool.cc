#include "aslr/aslr_tool.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "machine/record_events.h"
#include "perf/describe.h"
#include "perf/features.h"
#include "perf/record_encoders.h"
#include "perf/sample.h"
#include "perf/tracing_data.h"
#include "pipeline/header_attr.h"

namespace perftk::aslr {
namespace {

using machine::Machine;
using machine::Map;
using machine::MapKind;

constexpr uint64_t kRemovedSampleFields = PERF_SAMPLE_REGS_USER | PERF_SAMPLE_REGS_INTR |
                                          PERF_SAMPLE_STACK_USER | PERF_SAMPLE_RAW |
                                          PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_AUX;
constexpr uint64_t kSmallestAddress = 0x10000;  // below: never mapped, kept as is

bool IsKernelMode(uint16_t cpumode) {
  return cpumode == PERF_RECORD_MISC_KERNEL || cpumode == PERF_RECORD_MISC_GUEST_KERNEL;
}

// The cpumode of the other half of the same machine.
uint16_t OtherSpace(uint16_t cpumode) {
  switch (cpumode) {
    case PERF_RECORD_MISC_KERNEL:
      return PERF_RECORD_MISC_USER;
    case PERF_RECORD_MISC_USER:
      return PERF_RECORD_MISC_KERNEL;
    case PERF_RECORD_MISC_GUEST_KERNEL:
      return PERF_RECORD_MISC_GUEST_USER;
    case PERF_RECORD_MISC_GUEST_USER:
      return PERF_RECORD_MISC_GUEST_KERNEL;
    default:
      return PERF_RECORD_MISC_KERNEL;
  }
}

// Memory perf symbolizes by address, not through a file offset.
bool IsPlacedByRange(const Map& map) { return map.IsIdentity() || map.kind == MapKind::kKsymbol; }

// Kinds whose pgoff is an address of the recorded machine, not a file offset.
bool PgoffIsAddress(MapKind kind) {
  return kind == MapKind::kKernel || kind == MapKind::kAnon || kind == MapKind::kNoFile;
}

bool IsSafeFeature(int feature) {
  switch (feature) {
    case HEADER_BUILD_ID:
    case HEADER_HOSTNAME:
    case HEADER_OSRELEASE:
    case HEADER_VERSION:
    case HEADER_ARCH:
    case HEADER_NRCPUS:
    case HEADER_CPUDESC:
    case HEADER_CPUID:
    case HEADER_TOTAL_MEM:
    case HEADER_CMDLINE:
    case HEADER_CPU_TOPOLOGY:
    case HEADER_NUMA_TOPOLOGY:
    case HEADER_BRANCH_STACK:
    case HEADER_PMU_MAPPINGS:
    case HEADER_GROUP_DESC:
    case HEADER_STAT:
    case HEADER_CACHE:
    case HEADER_SAMPLE_TIME:
    case HEADER_MEM_TOPOLOGY:
    case HEADER_CLOCKID:
    case HEADER_BPF_BTF:
    case HEADER_CPU_PMU_CAPS:
    case HEADER_CLOCK_DATA:
    case HEADER_HYBRID_TOPOLOGY:
    case HEADER_PMU_CAPS:
    case HEADER_CPU_DOMAIN_INFO:
      return true;
    default:
      return false;
  }
}

bool IsKnownRecordType(uint32_t type) {
  return (type >= PERF_RECORD_MMAP && type <= PERF_RECORD_CALLCHAIN_DEFERRED) ||
         (type >= PERF_RECORD_USER_TYPE_START && type <= PERF_RECORD_SCHEDSTAT_DOMAIN);
}

bool Is64BitArch(const perf::FeatureSet& features) {
  absl::StatusOr<std::string> arch = perf::ReadStringFeature(features, HEADER_ARCH);
  if (!arch.ok()) return sizeof(void*) == 8;
  return absl::StrContains(*arch, "64") || *arch == "s390x";
}

}  // namespace

std::string ScrubEventName(const std::string& name) {
  if (!absl::StartsWith(name, "mem:")) return name;
  size_t end = name.find_first_of("/:", 4);
  if (end == std::string::npos) end = name.size();
  return absl::StrCat("mem:0x0", name.substr(end));
}

AslrTool::AslrTool(AslrSettings settings) : settings_(settings), table_(settings.page_size, true) {}

void AslrTool::StripAttr(perf::EventAttr& attr) const {
  // Clear only fields the attr's ABI size has: an attr keeps its size.
  auto clear = [&attr](size_t offset, size_t width) {
    if (offset + width > attr.size()) return;
    if (width == 8) attr.SetU64(offset, 0);
    if (width == 4) attr.SetU32(offset, 0);
  };
  attr.set_sample_type(attr.sample_type() & ~kRemovedSampleFields);
  clear(attr_offset::kSampleRegsUser, 8);
  clear(attr_offset::kSampleStackUser, 4);
  clear(attr_offset::kSampleRegsIntr, 8);
  clear(attr_offset::kAuxSampleSize, 4);
  if (attr.type() == PERF_TYPE_BREAKPOINT) clear(attr_offset::kConfig1, 8);  // bp_addr
  if (probe_pmu_types_.contains(attr.type())) {
    clear(attr_offset::kConfig1, 8);  // kprobe_func / uprobe_path: pointers
    clear(attr_offset::kConfig2, 8);  // kprobe_addr / probe_offset
  }
}

absl::Status AslrTool::ScrubEventDesc(std::vector<std::byte>& section) const {
  return pipeline::RewriteEventDesc(
      section, [this](perf::EventAttr& attr) { StripAttr(attr); }, ScrubEventName);
}

absl::Status AslrTool::ScrubFeature(int feature, std::vector<std::byte>& section) {
  if (feature == HEADER_CMDLINE && settings_.strip_cmdline) {
    return absl::CancelledError("--strip-cmdline");
  }
  if (feature == HEADER_HOSTNAME && settings_.strip_hostname) {
    return absl::CancelledError("--strip-hostname");
  }
  if (feature == HEADER_EVENT_DESC) return ScrubEventDesc(section);
  if (feature == HEADER_TRACING_DATA) return perf::ScrubTracingData(section);
  if (!IsSafeFeature(feature)) {
    return absl::UnimplementedError("not known to be free of addresses");
  }
  return absl::OkStatus();
}

void AslrTool::NoteRemovedFeature(int feature, const absl::Status& why) {
  stats_.removed.push_back(
      absl::StrCat("feature ", perf::FeatureName(feature), " (", why.message(), ")"));
}

absl::Status AslrTool::Begin(perf::Header& header) {
  table_ = RemapTable(settings_.page_size, Is64BitArch(header.features));
  if (absl::StatusOr<std::vector<std::pair<uint32_t, std::string>>> pmus =
          perf::ReadPmuMappings(header.features);
      pmus.ok()) {
    for (const auto& [type, name] : *pmus) {
      if (name == "kprobe" || name == "uprobe") probe_pmu_types_.insert(type);
    }
  }
  input_events_ = header.events;
  for (perf::EventAttr& attr : header.events.mutable_attrs()) {
    uint64_t removed = attr.sample_type() & kRemovedSampleFields;
    StripAttr(attr);
    if (removed)
      stats_.removed.push_back(absl::StrCat("sample fields ", perf::SampleTypeNames(removed)));
  }
  header.events.Reindex();
  output_events_ = header.events;
  for (auto it = header.features.begin(); it != header.features.end();) {
    if (absl::Status kept = ScrubFeature(it->first, it->second); kept.ok()) {
      ++it;
    } else {
      NoteRemovedFeature(it->first, kept);
      it = header.features.erase(it);
    }
  }
  return absl::OkStatus();
}

absl::Status AslrTool::Fail(const perf::Record& record, const absl::Status& status) const {
  return perf::RecordError(record, status);
}

void AslrTool::Drop(const perf::Record& record) {
  ++stats_.dropped[perf::RecordTypeName(record.type())];
}

absl::Status AslrTool::Emit(const perf::Record& original, base::Bytes body,
                            pipeline::RecordSink& out) {
  absl::StatusOr<std::vector<std::byte>> bytes =
      perf::MakeRecordBytes(original.type(), original.misc(), body);
  if (!bytes.ok()) return Fail(original, bytes.status());
  return out.Emit(perf::Record(*bytes, original.file_offset()));
}

RemapTable::Space AslrTool::SpaceOf(const Machine* machine, int32_t pid, uint16_t cpumode) const {
  return RemapTable::Space{machine, IsKernelMode(cpumode) ? RemapTable::kKernelPid : pid};
}

[[gnu::always_inline]] inline uint64_t AslrTool::Translate(int32_t pid, uint16_t cpumode,
                                                           uint64_t addr) {
  if (addr < kSmallestAddress) return addr;
  ++stats_.addresses;
  cpumode &= PERF_RECORD_MISC_CPUMODE_MASK;
  if (std::optional<uint64_t> moved = recent_.Find(pid, cpumode, addr)) return *moved;
  return TranslateUncached(pid, cpumode, addr);
}

// Out of line, so that the cached path above stays small enough to inline.
[[gnu::noinline]] uint64_t AslrTool::TranslateUncached(int32_t pid, uint16_t cpumode,
                                                       uint64_t addr) {
  if (std::optional<uint64_t> moved = recent_unknown_.Find(pid, cpumode, addr)) {
    ++stats_.unknown_addresses;
    return *moved;
  }
  if (const Machine* machine = model().Find(cpumode, pid)) {
    for (uint16_t mode : {cpumode, OtherSpace(cpumode)}) {
      std::optional<Map> map = machine->FindMap(pid, mode, addr);
      if (!map) continue;
      RemapTable::Space space = SpaceOf(machine, pid, mode);
      std::optional<uint64_t> moved;
      if (IsPlacedByRange(*map)) {
        // Through the map's start: the kernel text map can end before addr.
        std::optional<uint64_t> start = table_.TranslateMemory(space, map->start);
        if (start) moved = *start + (addr - map->start);
      } else {
        moved = table_.TranslateFile(space, map->dso, map->start, map->pgoff, addr);
      }
      if (!moved) continue;
      // The whole map moves alike. Only a map found in the space asked for
      // stands for its range: one found in the other space does not say
      // that the space asked for has nothing there.
      if (mode == cpumode && map->Contains(addr)) {
        recent_.Remember(pid, cpumode, map->start, map->end, *moved - addr);
      }
      return *moved;
    }
  }
  ++stats_.unknown_addresses;
  const uint64_t moved = table_.SubstituteUnknown(addr, (addr >> 63) != 0 || IsKernelMode(cpumode));
  // Every address of the page moves alike.
  const uint64_t page = addr / table_.page_size() * table_.page_size();
  if (page + table_.page_size() > page) {
    recent_unknown_.Remember(pid, cpumode, page, page + table_.page_size(), moved - addr);
  }
  return moved;
}

absl::Status AslrTool::RewriteMmap(const perf::Record& record, pipeline::RecordSink& out) {
  absl::StatusOr<machine::MmapEvent> mmap = machine::MmapEventOf(record);
  if (!mmap.ok()) return Fail(record, mmap.status());
  ++stats_.mappings;
  const uint16_t cpumode = record.cpumode();
  const Machine* machine = model().Find(cpumode, mmap->pid);
  std::optional<Map> map;
  if (machine != nullptr) map = machine->FindMap(mmap->pid, cpumode, mmap->start);

  uint64_t start = mmap->start, pgoff = mmap->pgoff;
  uint64_t new_start, new_pgoff = pgoff;
  if (!map || map->start != start) {
    new_start = Translate(mmap->pid, cpumode, start);
    if (pgoff >= kSmallestAddress && !map) new_pgoff = Translate(mmap->pid, cpumode, pgoff);
  } else {
    RemapTable::Space space = SpaceOf(machine, mmap->pid, cpumode);
    std::optional<Map> before =
        start > 0 ? machine->FindMap(mmap->pid, cpumode, start - 1) : std::nullopt;
    bool contiguous = before && before->end == start;
    new_start = IsPlacedByRange(*map)
                    ? table_.PlaceMemory(space, start, mmap->len, contiguous)
                    : table_.PlaceFile(space, map->dso, start, mmap->len, pgoff, contiguous);
    stats_.addresses += 1;
    if (PgoffIsAddress(map->kind) && pgoff != 0) {
      new_pgoff = pgoff - start + new_start;
    } else if (map->kind == MapKind::kKernelExtra && pgoff >= kSmallestAddress) {
      new_pgoff = Translate(mmap->pid, PERF_RECORD_MISC_KERNEL, pgoff);
    }
  }
  std::vector<std::byte> bytes(record.bytes().begin(), record.bytes().end());
  base::Store<uint64_t>(bytes.data() + perf::MmapRecord::kStartOffset, new_start);
  base::Store<uint64_t>(bytes.data() + perf::MmapRecord::kPgoffOffset, new_pgoff);
  return out.Emit(perf::Record(bytes, record.file_offset()));
}

absl::Status AslrTool::RewriteKsymbol(const perf::Record& record, pipeline::RecordSink& out) {
  absl::StatusOr<machine::KsymbolEvent> ksym = machine::KsymbolEventOf(record);
  if (!ksym.ok()) return Fail(record, ksym.status());
  uint64_t new_addr;
  if (ksym->unregister()) {
    // Translated before the model let the symbol go (without a model
    // that follows records, as in tests, here).
    new_addr = unregistered_address_ ? *unregistered_address_
                                     : Translate(0, PERF_RECORD_MISC_KERNEL, ksym->addr);
    unregistered_address_.reset();
  } else {
    const Machine* machine = model().Find(PERF_RECORD_MISC_KERNEL, 0);
    std::optional<Map> map =
        machine ? machine->FindMap(0, PERF_RECORD_MISC_KERNEL, ksym->addr) : std::nullopt;
    if (map && map->kind == MapKind::kKsymbol && map->start == ksym->addr) {
      std::optional<Map> before = machine->FindMap(0, PERF_RECORD_MISC_KERNEL, ksym->addr - 1);
      new_addr = table_.PlaceMemory(SpaceOf(machine, 0, PERF_RECORD_MISC_KERNEL), ksym->addr,
                                    ksym->len, before && before->end == ksym->addr);
      ++stats_.addresses;
    } else {
      new_addr = Translate(0, PERF_RECORD_MISC_KERNEL, ksym->addr);
    }
  }
  std::vector<std::byte> bytes(record.bytes().begin(), record.bytes().end());
  base::Store<uint64_t>(bytes.data() + perf::KsymbolRecord::kAddrOffset, new_addr);
  return out.Emit(perf::Record(bytes, record.file_offset()));
}

absl::Status AslrTool::FollowTask(const perf::Record& record, pipeline::RecordSink& out) {
  const uint16_t cpumode = record.cpumode();
  if (record.type() != PERF_RECORD_COMM) {
    absl::StatusOr<machine::TaskEvent> task = machine::TaskEventOf(record);
    if (!task.ok()) return Fail(record, task.status());
    const Machine* machine = model().Find(cpumode, task->pid);
    // An exited process keeps its placements, as the model keeps its maps:
    // samples taken while it exits come after its EXIT.
    if (record.type() == PERF_RECORD_FORK && task->pid != task->ppid) {
      table_.Fork(SpaceOf(machine, task->ppid, PERF_RECORD_MISC_USER),
                  SpaceOf(machine, task->pid, PERF_RECORD_MISC_USER));
    }
  }
  return out.Emit(record);
}

absl::Status AslrTool::RewriteSample(const perf::Record& record, pipeline::RecordSink& out) {
  absl::StatusOr<size_t> index = input_events_.IndexOf(record);
  if (!index.ok()) return Fail(record, index.status());
  const perf::SampleFormat& in = input_events_.format(*index);
  perf::Sample& sample = sample_;  // reused: its buffers serve every sample
  perf::SampleFieldOffsets offsets;
  if (absl::Status s = perf::DecodeSampleInto(in, record.body(), sample, &offsets); !s.ok()) {
    return Fail(record, s);
  }
  ++stats_.samples;
  const int32_t pid = in.has(PERF_SAMPLE_TID) ? static_cast<int32_t>(sample.pid) : -1;
  const uint16_t cpumode = record.cpumode();

  if (in.has(PERF_SAMPLE_IP)) sample.ip = Translate(pid, cpumode, sample.ip);
  if (in.has(PERF_SAMPLE_ADDR)) sample.addr = Translate(pid, cpumode, sample.addr);
  uint16_t context = cpumode;
  for (size_t i = 0; i < sample.callchain.size(); ++i) {
    uint64_t& entry = sample.callchain[i];
    if (entry < PERF_CONTEXT_MAX) {
      entry = Translate(pid, context, entry);
      continue;
    }
    switch (entry) {
      case PERF_CONTEXT_HV:
        context = PERF_RECORD_MISC_HYPERVISOR;
        break;
      case PERF_CONTEXT_KERNEL:
        context = PERF_RECORD_MISC_KERNEL;
        break;
      case PERF_CONTEXT_USER:
        context = PERF_RECORD_MISC_USER;
        break;
      case PERF_CONTEXT_GUEST:
      case PERF_CONTEXT_GUEST_KERNEL:
        context = PERF_RECORD_MISC_GUEST_KERNEL;
        break;
      case PERF_CONTEXT_GUEST_USER:
        context = PERF_RECORD_MISC_GUEST_USER;
        break;
      case PERF_CONTEXT_USER_DEFERRED:
        context = PERF_RECORD_MISC_USER;
        ++i;  // the cookie that stitches the deferred user callchain
        break;
      default:
        break;
    }
  }
  for (perf::BranchEntry& branch : sample.branch_stack.entries) {
    branch.from = Translate(pid, cpumode, branch.from);
    branch.to = Translate(pid, cpumode, branch.to);
  }
  return EmitSample(record, in, output_events_.format(*index), offsets, out);
}

absl::Status AslrTool::EmitSample(const perf::Record& record, const perf::SampleFormat& in,
                                  const perf::SampleFormat& format,
                                  const perf::SampleFieldOffsets& at, pipeline::RecordSink& out) {
  if (format == in && at.size == record.body().size()) {
    // The same layout: the record as read, its addresses overwritten, is
    // what encoding the sample would give.
    record_.assign(record.bytes().begin(), record.bytes().end());
    perf::OverwriteSampleAddresses(at, sample_,
                                   base::MutableBytes(record_).subspan(perf::kRecordHeaderSize));
    return out.Emit(perf::Record(record_, record.file_offset()));
  }
  record_.resize(perf::kRecordHeaderSize);
  perf::EncodeSample(format, sample_, record_);
  if (absl::Status s = perf::SetRecordHeader(record.type(), record.misc(), record_); !s.ok()) {
    return Fail(record, s);
  }
  return out.Emit(perf::Record(record_, record.file_offset()));
}

absl::Status AslrTool::RewriteDeferredCallchain(const perf::Record& record,
                                                pipeline::RecordSink& out) {
  absl::StatusOr<size_t> index = input_events_.IndexOf(record);
  if (!index.ok()) return Fail(record, index.status());
  const perf::SampleFormat& format = input_events_.format(*index);
  absl::StatusOr<perf::SampleId> id = perf::DecodeSampleId(format, record.bytes());
  if (!id.ok()) return Fail(record, id.status());
  std::vector<std::byte> bytes(record.bytes().begin(), record.bytes().end());
  const int32_t pid = static_cast<int32_t>(id->pid);
  if (absl::Status s = perf::MapDeferredCallchainIps(
          bytes, format.trailer_size(),
          [&](uint64_t ip) { return Translate(pid, PERF_RECORD_MISC_USER, ip); });
      !s.ok()) {
    return Fail(record, s);
  }
  return out.Emit(perf::Record(bytes, record.file_offset()));
}

absl::Status AslrTool::RewriteHeaderAttr(const perf::Record& record, pipeline::RecordSink& out) {
  absl::StatusOr<std::vector<std::byte>> bytes = pipeline::RewriteHeaderAttr(
      record, input_events_, output_events_, [this](perf::EventAttr& attr) { StripAttr(attr); });
  if (!bytes.ok()) return Fail(record, bytes.status());
  return out.Emit(perf::Record(*bytes, record.file_offset()));
}

absl::Status AslrTool::RewriteHeaderFeature(const perf::Record& record, pipeline::RecordSink& out) {
  absl::StatusOr<perf::HeaderFeatureRecord> view = perf::HeaderFeatureRecord::From(record);
  if (!view.ok()) return Fail(record, view.status());
  std::vector<std::byte> section(view->data().begin(), view->data().end());
  const int feature = static_cast<int>(view->feature());
  if (absl::Status kept = ScrubFeature(feature, section); !kept.ok()) {
    Drop(record);
    NoteRemovedFeature(feature, kept);
    return absl::OkStatus();
  }
  absl::StatusOr<std::vector<std::byte>> bytes =
      perf::EncodeHeaderFeature(view->feature(), section, record.misc());
  if (!bytes.ok()) return Fail(record, bytes.status());
  return out.Emit(perf::Record(*bytes, record.file_offset()));
}

absl::Status AslrTool::RewriteTracingData(const perf::Record& record, pipeline::RecordSink& out) {
  std::vector<std::byte> data(record.trailing_payload().begin(), record.trailing_payload().end());
  if (!perf::ScrubTracingData(data).ok()) {
    Drop(record);
    return absl::OkStatus();
  }
  absl::StatusOr<std::vector<std::byte>> bytes = perf::EncodeHeaderTracingData(data, record.misc());
  if (!bytes.ok()) return Fail(record, bytes.status());
  return out.Emit(perf::Record(*bytes, record.file_offset(), data));
}

absl::Status AslrTool::RewriteEventUpdate(const perf::Record& record, pipeline::RecordSink& out) {
  absl::StatusOr<perf::EventUpdateRecord> update = perf::EventUpdateRecord::From(record);
  if (!update.ok() || update->update_type() != perf::EventUpdateRecord::kName)
    return out.Emit(record);
  absl::StatusOr<std::vector<std::byte>> bytes = perf::EncodeEventUpdateName(
      update->id(), ScrubEventName(std::string(update->text())), record.misc());
  if (!bytes.ok()) return Fail(record, bytes.status());
  return out.Emit(perf::Record(*bytes, record.file_offset()));
}

absl::Status AslrTool::Process(const perf::Record& record, pipeline::RecordSink& out) {
  ++stats_.records;
  if (machine::ChangesMachines(record.type())) {
    // Lookups made while the record changes things must not outlive it.
    recent_.Clear();
    recent_unknown_.Clear();
    absl::Status status = ProcessOne(record, out);
    recent_.Clear();
    recent_unknown_.Clear();
    return status;
  }
  return ProcessOne(record, out);
}

absl::Status AslrTool::BeforeModelChange(const perf::Record& record, pipeline::RecordSink& out) {
  (void)out;
  recent_.Clear();
  recent_unknown_.Clear();
  unregistered_address_.reset();
  if (record.type() != PERF_RECORD_KSYMBOL) return absl::OkStatus();
  absl::StatusOr<machine::KsymbolEvent> ksym = machine::KsymbolEventOf(record);
  if (!ksym.ok() || !ksym->unregister()) return absl::OkStatus();  // Process judges it
  unregistered_address_ = Translate(0, PERF_RECORD_MISC_KERNEL, ksym->addr);
  recent_.Clear();  // what it found goes with the symbol
  recent_unknown_.Clear();
  return absl::OkStatus();
}

absl::Status AslrTool::ProcessOne(const perf::Record& record, pipeline::RecordSink& out) {
  switch (record.type()) {
    case PERF_RECORD_MMAP:
    case PERF_RECORD_MMAP2:
      return RewriteMmap(record, out);
    case PERF_RECORD_KSYMBOL:
      return RewriteKsymbol(record, out);
    case PERF_RECORD_COMM:
    case PERF_RECORD_FORK:
    case PERF_RECORD_EXIT:
      return FollowTask(record, out);
    case PERF_RECORD_SAMPLE:
      return RewriteSample(record, out);
    case PERF_RECORD_CALLCHAIN_DEFERRED:
      return RewriteDeferredCallchain(record, out);
    case PERF_RECORD_HEADER_ATTR:
      return RewriteHeaderAttr(record, out);
    case PERF_RECORD_HEADER_FEATURE:
      return RewriteHeaderFeature(record, out);
    case PERF_RECORD_HEADER_TRACING_DATA:
      return RewriteTracingData(record, out);
    case PERF_RECORD_EVENT_UPDATE:
      return RewriteEventUpdate(record, out);
    case PERF_RECORD_TEXT_POKE:
    case PERF_RECORD_AUX:
    case PERF_RECORD_AUXTRACE:
    case PERF_RECORD_AUXTRACE_INFO:
    case PERF_RECORD_AUXTRACE_ERROR:
      Drop(record);
      return absl::OkStatus();
    default:
      if (!IsKnownRecordType(record.type())) {
        Drop(record);
        return absl::OkStatus();
      }
      return out.Emit(record);
  }
}

}  // namespace perftk::aslr
