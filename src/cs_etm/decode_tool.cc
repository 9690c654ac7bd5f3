#include "cs_etm/decode_tool.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <mutex>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "cs_etm/a64_branch.h"
#include "cs_etm/lane_pool.h"
#include "cs_etm/opencsd_guard.h"
#include "cs_etm/profile_text.h"
#include "elf/elf_file.h"
#include "machine/record_events.h"
#include "perf/features.h"
#include "perf/sample.h"

namespace perftk::cs_etm {
namespace {

constexpr uint64_t kPerfCountHwInstructions = 1;
constexpr uint64_t kPerfCountHwBranchInstructions = 4;
constexpr uint64_t kPerfSampleBranchAny = 1u << 3;
constexpr uint64_t kKernelSpaceStart = 0xffff000000000000ULL;
// Blocks in flight and records waiting behind them, at most.
constexpr size_t kMaxQueuedSlots = 4096;
// sample_type bits that place the id of a sample, counted from its start.
constexpr uint64_t kBitsBeforeId = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                                   PERF_SAMPLE_ADDR;
// sample_type bits of the sample_id trailer.
constexpr uint64_t kTrailerBits = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
                                  PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |
                                  PERF_SAMPLE_IDENTIFIER;
// attr flag bits copied to the synthesized events: exclude_user/kernel/hv/idle,
// sample_id_all, exclude_host/guest.
constexpr uint64_t kCopiedFlags = (0xfULL << 4) | (1ULL << 18) | (3ULL << 19);

bool IsKernel(const PacketContext& context, uint64_t address) {
  if (context.el == kUnknownEl) return address >= kKernelSpaceStart;
  return context.el >= 1;
}

bool IsProfile(OutputFormat format) {
  return format == OutputFormat::kAutoFdo || format == OutputFormat::kBolt;
}

// The PT_LOADs of the user-space binaries of `profile` whose files were
// found; the others (missing files) keep file offsets. Kernel modules count
// from their .text, as simpleperf's inject writes them: its
// KernelModuleDso::IpToVaddrInFile (dso.cpp) gives a module address as the
// offset from the runtime start of .text plus .text's sh_addr (0 in a .ko),
// and cmd_inject.cpp's AutoFDOWriter subtracts the first PT_LOAD's vaddr,
// 0 for a .ko, which has none. Code before .text (arm64's PLT) wraps, as
// there. The kernel's addresses are vmlinux link addresses (Locate), from
// its first load for AutoFDO.
std::map<const machine::Dso*, BinaryLayout> LayoutsOf(const BranchProfile& profile,
                                                      BinaryImages& images) {
  std::map<const machine::Dso*, BinaryLayout> layouts;
  for (const auto& entry : profile.binaries()) {
    const machine::Dso* dso = entry.first;
    if (dso->kernel_space) {
      // With a kcore the .ko is read for its layout alone (found or not, the
      // code came from the kcore; its warnings were taken before this).
      const Image* module = images.Find(*dso);
      if (module != nullptr && module->module) {
        const uint64_t text = module->module->text_start();
        layouts[dso].loads.push_back({text, 0, std::numeric_limits<uint64_t>::max() - text});
      } else if (const KernelCode* code =
                     absl::StartsWith(dso->name, "[kernel.kallsyms") ? images.Kernel(*dso) : nullptr;
                 code != nullptr && !code->image.is_core()) {
        const uint64_t first = code->image.first_load_vaddr();
        layouts[dso].loads.push_back({first, first, std::numeric_limits<uint64_t>::max() - first});
      }
      continue;
    }
    const Image* image = images.Find(*dso);
    if (image == nullptr) continue;
    absl::StatusOr<std::unique_ptr<elf::ElfFile>> elf = elf::ElfFile::Open(image->path);
    if (!elf.ok()) continue;
    BinaryLayout& layout = layouts[dso];
    for (const elf::Segment& segment : (*elf)->segments()) {
      if (segment.type == PT_LOAD) {
        layout.loads.push_back({segment.offset, segment.vaddr, segment.file_size});
      }
    }
  }
  return layouts;
}

// Whether a trace id's flow can carry from one of its blocks into the next.
// Every block ends with the end of trace, a discontinuity, which empties the
// ring of last branches and, with l and i, flushes the instruction count
// into a sample. Only i without l leaves a count (toward the next sample)
// that the next block goes on from. Otherwise each block starts from empty
// flows, and blocks decode independently.
bool FlowsCarryAcrossBlocks(const ItraceOptions& itrace) {
  return itrace.instructions && !itrace.last_branch;
}

// The locator of the profile the lanes' profiles are added into: it never
// sees a packet.
class NoCode : public CodeLocator {
 public:
  std::optional<CodeLocation> Locate(const PacketContext&, uint64_t) override {
    return std::nullopt;
  }
  std::optional<uint64_t> DirectBranchTarget(const PacketContext&, uint64_t, Isa) override {
    return std::nullopt;
  }
};

}  // namespace

// What decoders are made from; replaced, never changed, when it changes.
struct CsEtmDecodeTool::Setup {
  CsEtmInfo info;
  std::map<uint32_t, uint8_t> trace_ids;  // by cpu
  uint64_t generation = 0;
};

// One block to decode on a lane, and what decoding it gave.
struct CsEtmDecodeTool::Job {
  TraceBlock block;
  std::vector<std::byte> data;  // the block's trace when it outlives its record
  int64_t source = -1;          // -1: formatted; else the raw trace's cpu
  TraceFlows* flows = nullptr;  // of the source, or own_flows
  std::unique_ptr<TraceFlows> own_flows;  // when no flow carries from block to block
  std::optional<TraceIdSet> ids;  // the trace ids the block may feed; nullopt: any
  std::shared_ptr<const Setup> setup;
  uint64_t model_generation = 0;  // changes of the machine model before it
  Lane* lane = nullptr;
  uint64_t ticket = 0;
  // Results, written by the lane, read once the ticket is done.
  absl::Status status;
  std::vector<std::vector<std::byte>> records;  // kPerf samples
  std::string text;                             // kScript lines
  DecodeStats stats;                            // packets, samples, waits
  uint64_t errors = 0;
  std::string first_error;
};

// A block in flight, or a record that waits to be written behind one.
struct CsEtmDecodeTool::Slot {
  std::unique_ptr<Job> job;
  std::optional<OwnedRecord> record;
};

// Decodes jobs one at a time: owns the decoders, the synthesizer or profile
// whose state carries across blocks, and the map caches of its lookups.
// Reads the tool's machine model, images and output events, which nothing
// changes while a job runs.
class CsEtmDecodeTool::Lane : public DecodeEnvironment, public CodeLocator, public SampleOutput,
                              public PacketSink {
 public:
  explicit Lane(CsEtmDecodeTool& tool) : tool_(tool) {}
  ~Lane() override {
    std::lock_guard lock(OpenCsdSetupMutex());
    decoders_.clear();
  }

  void Run(Job& job) {
    job_ = &job;
    job.status = Decode(job);
    job_ = nullptr;
  }
  const BranchProfile* profile() const { return profile_.get(); }

  // PacketSink: every packet to the synthesizer and, for profiles, to the profile.
  absl::Status Consume(std::span<const Packet> packets) override {
    job_->stats.packets += packets.size();
    if (synthesizer_ != nullptr) {
      if (absl::Status s = synthesizer_->Consume(packets); !s.ok()) return s;
    }
    if (profile_ != nullptr) return profile_->Consume(packets);
    return absl::OkStatus();
  }
  absl::Status EndBlock() override {
    if (synthesizer_ != nullptr) {
      if (absl::Status s = synthesizer_->EndBlock(); !s.ok()) return s;
    }
    if (profile_ != nullptr) return profile_->EndBlock();
    return absl::OkStatus();
  }

  // DecodeEnvironment
  int32_t PidOf(int32_t tid) override;
  uint32_t ReadCode(const PacketContext& context, uint64_t address, uint32_t size,
                    uint8_t* out) override;
  // CodeLocator
  std::optional<CodeLocation> Locate(const PacketContext& context, uint64_t address) override;
  std::optional<uint64_t> DirectBranchTarget(const PacketContext& context, uint64_t address,
                                             Isa isa) override;
  // SampleOutput
  absl::Status Emit(const SynthesizedSample& sample) override;

 private:
  struct KeyedDecoder {
    uint64_t generation = 0;
    std::unique_ptr<TraceDecoder> decoder;
  };

  absl::Status Decode(Job& job);
  absl::StatusOr<TraceDecoder*> DecoderFor(const Job& job);
  void DropDecoder(int64_t source);
  std::optional<machine::Map> FindMap(const PacketContext& context, uint64_t address);
  // How far the running kernel is from `code`'s link addresses (KASLR).
  uint64_t KernelSlide(const machine::Map& text, const KernelCode& code);
  void AppendScriptLine(const SynthesizedSample& sample);

  CsEtmDecodeTool& tool_;
  Job* job_ = nullptr;
  std::map<int64_t, KeyedDecoder> decoders_;  // by source
  std::unique_ptr<SampleSynthesizer> synthesizer_;
  uint64_t synthesizer_generation_ = 0;  // of the setup it was made for
  std::unique_ptr<BranchProfile> profile_;
  uint64_t model_generation_ = 0;  // of the model the cache below was filled from
  int32_t cached_pid_ = -2;
  std::shared_ptr<machine::Maps> cached_maps_;
  machine::MapsCache maps_cache_;
  machine::MapsCache kernel_cache_;
  std::optional<uint64_t> kernel_slide_;  // of the model generation above
};

absl::StatusOr<TraceDecoder*> CsEtmDecodeTool::Lane::DecoderFor(const Job& job) {
  auto it = decoders_.find(job.source);
  if (it != decoders_.end() && it->second.generation == job.setup->generation) {
    return it->second.decoder.get();
  }
  DropDecoder(job.source);
  std::lock_guard lock(OpenCsdSetupMutex());
  absl::StatusOr<std::unique_ptr<TraceDecoder>> decoder = TraceDecoder::Create(
      job.setup->info, job.setup->trace_ids, job.block.formatted,
      static_cast<uint32_t>(job.source), *this, tool_.options_.packet_batch);
  if (!decoder.ok()) return decoder.status();
  KeyedDecoder& entry = decoders_[job.source];
  entry.generation = job.setup->generation;
  entry.decoder = std::move(*decoder);
  return entry.decoder.get();
}

void CsEtmDecodeTool::Lane::DropDecoder(int64_t source) {
  auto it = decoders_.find(source);
  if (it == decoders_.end()) return;
  std::lock_guard lock(OpenCsdSetupMutex());
  decoders_.erase(it);
}

absl::Status CsEtmDecodeTool::Lane::Decode(Job& job) {
  if (job.model_generation != model_generation_) {  // a process may have a new address space
    model_generation_ = job.model_generation;
    cached_pid_ = -2;
    cached_maps_.reset();
    kernel_slide_.reset();
  }
  absl::StatusOr<TraceDecoder*> decoder = DecoderFor(job);
  if (!decoder.ok()) return decoder.status();
  const OutputFormat format = tool_.options_.format;
  // A synthesizer keeps no flows (the job brings them): one per setup, so
  // that a sample's CPU does not depend on the lane that made it.
  if (!IsProfile(format) && (!synthesizer_ || synthesizer_generation_ != job.setup->generation)) {
    std::map<uint8_t, uint32_t> cpu_of_trace_id;
    for (const auto& [cpu, id] : job.setup->trace_ids) cpu_of_trace_id[id] = cpu;
    synthesizer_ = std::make_unique<SampleSynthesizer>(tool_.options_.itrace, cpu_of_trace_id,
                                                       *this, *this);
    synthesizer_generation_ = job.setup->generation;
  }
  if (!profile_ && IsProfile(format)) {
    profile_ = std::make_unique<BranchProfile>(*this);
    profile_->SetBuildIds(tool_.build_ids_);
  }
  if (synthesizer_) synthesizer_->BeginBlock(kNoCpu, job.block.time, *job.flows, job.ids);
  const uint64_t waits_before = (*decoder)->waits();
  absl::Status status = (*decoder)->Decode(job.block, *this);
  job.stats.decoder_waits = (*decoder)->waits() - waits_before;
  job.errors = (*decoder)->decode_errors();
  job.first_error = (*decoder)->first_error();
  // The next block's errors must be its own: start it from a new decoder.
  if (job.errors > 0 || !status.ok()) DropDecoder(job.source);
  return status;
}

CsEtmDecodeTool::CsEtmDecodeTool(DecodeOptions options) : options_(std::move(options)) {
  QuietOpenCsdErrorLog();
  const size_t threads = options_.jobs > 1 ? static_cast<size_t>(options_.jobs) : 0;
  pool_ = std::make_unique<LanePool>(threads);
}

CsEtmDecodeTool::~CsEtmDecodeTool() {
  pool_.reset();  // no lane runs once it is gone
}

absl::Status CsEtmDecodeTool::Begin(Header& header) {
  header_ = header;
  absl::StatusOr<std::vector<BuildIdEntry>> build_ids = ReadBuildIds(header.features);
  if (build_ids.ok()) {
    for (const BuildIdEntry& entry : *build_ids) {
      build_ids_[entry.filename] =
          std::string(reinterpret_cast<const char*>(entry.build_id.data()), entry.build_id.size());
    }
  } else if (header.features.count(HEADER_BUILD_ID)) {
    warnings_.push_back(absl::StrCat("BUILD_ID feature unreadable: ",
                                     build_ids.status().message()));
  }
  images_ = std::make_unique<BinaryImages>(options_.symfs, build_ids_,
                                           KernelSources{options_.vmlinux, options_.kcore});
  if (options_.format == OutputFormat::kPerf) return AddSynthesizedEvents(header);
  return absl::OkStatus();
}

absl::Status CsEtmDecodeTool::AddSynthesizedEvents(Header& header) {
  if (header.events.empty()) return absl::InvalidArgumentError("the recording has no events");
  // A copy: adding events below moves the attrs.
  const EventAttr base = header.events.attrs().front();
  uint64_t sample_type = (base.sample_type() & kTrailerBits) | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
                         PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD;
  if (options_.itrace.branches) sample_type |= PERF_SAMPLE_ADDR;
  if (options_.itrace.last_branch) sample_type |= PERF_SAMPLE_BRANCH_STACK;
  // With several events perf finds a sample's event by its id, which must sit
  // at the same place in every event's samples. Without IDENTIFIER the place
  // depends on IP/TID/TIME/ADDR: give the input's events the bits the new
  // events have (their layout only changes for samples, which CoreSight
  // recordings' events do not produce; Process checks that).
  if (!(sample_type & PERF_SAMPLE_IDENTIFIER) && (sample_type & PERF_SAMPLE_ID)) {
    for (EventAttr& attr : header.events.mutable_attrs()) {
      uint64_t missing = sample_type & kBitsBeforeId & ~attr.sample_type();
      if (missing != 0) {
        attr.set_sample_type(attr.sample_type() | missing);
        changed_input_attrs_ = true;
      }
      if ((attr.sample_type() & kBitsBeforeId) != (sample_type & kBitsBeforeId)) {
        sample_type |= attr.sample_type() & kBitsBeforeId;
      }
    }
  }
  uint64_t next_id = 1;
  for (const EventAttr& attr : header.events.attrs()) {
    for (uint64_t id : attr.ids()) next_id = std::max(next_id, id + 1);
  }
  // A file has one attr size: make the new attrs as large as the input's.
  const std::vector<std::byte> zeros(std::max<size_t>(base.size(), PERF_ATTR_SIZE_VER5));
  auto make = [&](uint64_t config, uint64_t period) {
    EventAttr attr = *EventAttr::FromBytes(zeros);
    attr.SetU32(attr_offset::kType, PERF_TYPE_HARDWARE);
    attr.SetU64(attr_offset::kConfig, config);
    attr.SetU64(attr_offset::kSamplePeriod, period);
    attr.set_sample_type(sample_type);
    attr.SetU64(attr_offset::kFlags, base.flags() & kCopiedFlags);
    if (options_.itrace.last_branch) {
      attr.SetU64(attr_offset::kBranchSampleType, kPerfSampleBranchAny);
    }
    attr.ids().push_back(next_id++);
    return attr;
  };
  if (options_.itrace.instructions) {
    header.events.Add(make(kPerfCountHwInstructions, options_.itrace.period));
    instructions_event_ = header.events.size() - 1;
  }
  if (options_.itrace.branches) {
    header.events.Add(make(kPerfCountHwBranchInstructions, 1));
    branches_event_ = header.events.size() - 1;
  }
  if (options_.itrace.last_branch) header.features[HEADER_BRANCH_STACK] = {};
  header.features.erase(HEADER_AUXTRACE);
  output_events_ = header.events;
  return absl::OkStatus();
}

std::optional<SampleId> CsEtmDecodeTool::SampleIdOf(const Record& record) const {
  absl::StatusOr<size_t> index = header_.events.IndexOf(record);
  if (!index.ok()) return std::nullopt;
  const SampleFormat& format = header_.events.format(*index);
  if (!format.sample_id_all) return std::nullopt;
  absl::StatusOr<SampleId> id = DecodeSampleId(format, record.bytes());
  if (!id.ok()) return std::nullopt;
  return *id;
}

absl::Status CsEtmDecodeTool::Process(const Record& record, RecordSink& out) {
  sink_ = &out;
  switch (record.type()) {
    case PERF_RECORD_AUXTRACE_INFO:
      return OnAuxtraceInfo(record);
    case PERF_RECORD_AUXTRACE:
      if (absl::Status s = OnAuxtrace(record); !s.ok()) return s;
      return Flush(2 * static_cast<size_t>(std::max(options_.jobs, 1)));
    case PERF_RECORD_AUX:
      return OnAux(record);
    case PERF_RECORD_ITRACE_START:
      OnItraceStart(record);
      return absl::OkStatus();
    case PERF_RECORD_AUX_OUTPUT_HW_ID:
      OnHwId(record);
      return absl::OkStatus();
    case PERF_RECORD_AUXTRACE_ERROR:
      warnings_.push_back(absl::StrFormat("the recording has an AUXTRACE_ERROR record at offset %d",
                                          record.file_offset()));
      return absl::OkStatus();
    case PERF_RECORD_SWITCH:
    case PERF_RECORD_SWITCH_CPU_WIDE:
      OnSwitch(record);
      break;
    case PERF_RECORD_EXIT:
      break;
    case PERF_RECORD_SAMPLE:
      if (changed_input_attrs_) {
        return absl::UnimplementedError(absl::StrFormat(
            "sample at offset %d: the input's events identify samples by PERF_SAMPLE_ID and "
            "have samples of their own, so the synthesized events cannot be added to them",
            record.file_offset()));
      }
      break;
    default:
      if (machine::ChangesMachines(record.type())) {
        // Blocks in flight read the model: let them finish first.
        if (absl::Status s = Flush(0); !s.ok()) return s;
        ++model_generation_;
        if (absl::Status s = machine::ApplyRecord(machines_, record); !s.ok()) {
          warnings_.push_back(std::string(s.message()));
        }
      }
      break;
  }
  if (options_.format != OutputFormat::kPerf) return absl::OkStatus();
  if (slots_.empty()) return out.Emit(record);
  slots_.push_back(Slot{nullptr, OwnedRecord(record)});
  // Records waiting behind blocks are copies: bound them too.
  return slots_.size() > kMaxQueuedSlots ? Flush(0) : absl::OkStatus();
}

absl::Status CsEtmDecodeTool::OnAuxtraceInfo(const Record& record) {
  absl::StatusOr<AuxtraceInfoRecord> view = AuxtraceInfoRecord::From(record);
  if (!view.ok()) return view.status();
  if (view->auxtrace_type() != kAuxtraceCsEtm) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "AUXTRACE_INFO at offset %d has type %d, not CoreSight (%d)", record.file_offset(),
        view->auxtrace_type(), kAuxtraceCsEtm));
  }
  std::vector<uint64_t> priv = view->priv();
  absl::StatusOr<CsEtmInfo> info = ParseCsEtmInfo(priv);
  if (!info.ok()) {
    return absl::InvalidArgumentError(absl::StrFormat("AUXTRACE_INFO at offset %d: %s",
                                                      record.file_offset(),
                                                      info.status().message()));
  }
  info_ = std::move(*info);
  for (const TraceSource& source : info_->sources) {
    if (source.trace_id_valid) trace_ids_[source.cpu] = source.trace_id();
  }
  RenewSetup();
  return absl::OkStatus();
}

void CsEtmDecodeTool::RenewSetup() {
  if (!info_) return;
  auto setup = std::make_shared<Setup>();
  setup->info = *info_;
  setup->trace_ids = trace_ids_;
  setup->generation = ++setup_generation_;
  setup_ = std::move(setup);
}

absl::Status CsEtmDecodeTool::OnAux(const Record& record) {
  absl::StatusOr<AuxRecord> view = AuxRecord::From(record);
  if (!view.ok()) return view.status();
  AuxFragment fragment;
  fragment.offset = view->aux_offset();
  fragment.size = view->aux_size();
  fragment.flags = view->flags();
  fragment.file_offset = record.file_offset();
  if (std::optional<SampleId> id = SampleIdOf(record)) {
    fragment.cpu = id->cpu;
    fragment.tid = id->tid;
    fragment.time = id->time;
    if (auto seed = seeds_.find(id->cpu); seed != seeds_.end()) {
      fragment.seed_pid = seed->second.first;
      fragment.seed_tid = seed->second.second;
    }
  }
  gatherer_.AddAux(fragment);
  return absl::OkStatus();
}

void CsEtmDecodeTool::OnItraceStart(const Record& record) {
  absl::StatusOr<ItraceStartRecord> start = ItraceStartRecord::From(record);
  if (!start.ok()) return;
  int32_t pid = static_cast<int32_t>(start->pid());
  int32_t tid = static_cast<int32_t>(start->tid());
  if (std::optional<SampleId> id = SampleIdOf(record)) seeds_[id->cpu] = {pid, tid};
}

void CsEtmDecodeTool::OnSwitch(const Record& record) {
  if (record.misc() & PERF_RECORD_MISC_SWITCH_OUT) return;
  if (std::optional<SampleId> id = SampleIdOf(record)) {
    seeds_[id->cpu] = {static_cast<int32_t>(id->pid), static_cast<int32_t>(id->tid)};
  }
}

void CsEtmDecodeTool::OnHwId(const Record& record) {
  absl::StatusOr<AuxOutputHwIdRecord> hw = AuxOutputHwIdRecord::From(record);
  if (!hw.ok()) return;
  uint64_t hw_id = hw->hw_id();
  std::optional<SampleId> id = SampleIdOf(record);
  if (!id) {
    warnings_.push_back(absl::StrFormat(
        "AUX_OUTPUT_HW_ID at offset %d has no CPU: its trace id is ignored", record.file_offset()));
    return;
  }
  uint8_t trace_id = static_cast<uint8_t>(hw_id & 0x7f);
  auto [it, inserted] = trace_ids_.insert({id->cpu, trace_id});
  if (!inserted && it->second != trace_id) {
    it->second = trace_id;
    RenewSetup();
  } else if (inserted) {
    RenewSetup();
  }
}

absl::Status CsEtmDecodeTool::OnAuxtrace(const Record& record) {
  absl::StatusOr<AuxtraceRecord> view = AuxtraceRecord::From(record);
  if (!view.ok()) return view.status();
  if (!info_) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "AUXTRACE at offset %d comes before any AUXTRACE_INFO: no trace source is known",
        record.file_offset()));
  }
  AuxtraceBuffer buffer;
  buffer.offset = view->offset();
  buffer.size = view->payload_size();
  buffer.idx = view->idx();
  buffer.tid = view->tid();
  buffer.cpu = view->cpu();
  buffer.file_offset = record.file_offset();
  Bytes payload = record.trailing_payload();
  if (payload.size() < buffer.size) {
    warnings_.push_back(absl::StrFormat(
        "AUXTRACE at offset %d announces %d bytes of trace but has %d", record.file_offset(),
        buffer.size, payload.size()));
  }
  for (const TraceBlock& block : gatherer_.AddAuxtrace(buffer, payload)) {
    if (absl::Status s = SubmitBlock(block); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status CsEtmDecodeTool::SubmitBlock(const TraceBlock& block) {
  ++stats_.blocks;
  stats_.trace_bytes += block.data.size();
  auto job = std::make_unique<Job>();
  job->block = block;
  job->setup = setup_;
  job->model_generation = model_generation_;
  job->source = block.formatted ? -1 : static_cast<int64_t>(block.cpu);
  if (!block.formatted && block.cpu == kNoCpu) {
    if (info_->sources.size() != 1) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "raw trace at file offset %d names no CPU: cannot tell which trace unit made it",
          block.file_offset));
    }
    job->source = info_->sources.front().cpu;
  }
  if (options_.jobs > 1) {  // the trace outlives its record
    job->data.assign(block.data.begin(), block.data.end());
    job->block.data = Bytes(job->data);
  }
  const bool any_lane = IsProfile(options_.format) || !FlowsCarryAcrossBlocks(options_.itrace);
  if (any_lane) {
    job->own_flows = std::make_unique<TraceFlows>();
    job->flows = job->own_flows.get();
  } else {
    std::unique_ptr<TraceFlows>& flows = flows_[job->source];
    if (!flows) flows = std::make_unique<TraceFlows>();
    job->flows = flows.get();
  }
  uint64_t lane_key;
  if (any_lane) {
    lane_key = next_block_ % static_cast<uint64_t>(std::max(options_.jobs, 1));
  } else if (block.formatted) {
    lane_key = FormattedLaneFor(*job);
  } else {
    lane_key = static_cast<uint64_t>(job->source);
  }
  ++next_block_;
  std::unique_ptr<Lane>& lane = lanes_[lane_key];
  if (!lane) lane = std::make_unique<Lane>(*this);
  job->lane = lane.get();
  Job* raw = job.get();
  slots_.push_back(Slot{std::move(job), std::nullopt});
  ++blocks_in_flight_;
  raw->ticket = pool_->Submit(lane_key, [raw] { raw->lane->Run(*raw); });
  if (block.formatted && !any_lane) {
    for (size_t id = 0; id < last_use_of_id_.size(); ++id) {
      if (!raw->ids || raw->ids->test(id)) last_use_of_id_[id] = {lane_key, raw->ticket};
    }
  }
  return absl::OkStatus();
}

uint64_t CsEtmDecodeTool::FormattedLaneFor(Job& job) {
  // The ids the block can feed: those its frames switch to that name a
  // trace source of the decoder.
  job.ids = TraceIdsOfFrames(job.block.data);
  if (job.ids) {
    TraceIdSet known;
    for (const TraceSource& source : job.setup->info.sources) {
      known.set(DecoderTraceId(source, job.setup->trace_ids));
    }
    *job.ids &= known;
  }
  // One id: that id's lane, where its blocks follow each other. Several,
  // any, or none: the first id's lane or the shared one, after waiting for
  // the blocks of the other ids that run elsewhere.
  uint64_t lane = kFormattedLanes + kSharedFormattedLane;
  if (job.ids && job.ids->any()) {
    size_t first = 0;
    while (!job.ids->test(first)) ++first;
    lane = kFormattedLanes + first;
  }
  for (size_t id = 0; id < last_use_of_id_.size(); ++id) {
    if (job.ids && !job.ids->test(id)) continue;
    const auto [last_lane, ticket] = last_use_of_id_[id];
    if (ticket != 0 && last_lane != lane) pool_->Wait(ticket);
  }
  return lane;
}

absl::Status CsEtmDecodeTool::Flush(size_t max_in_flight) {
  while (!slots_.empty()) {
    Slot& front = slots_.front();
    if (front.record) {
      absl::Status status = sink_->Emit(front.record->view());
      slots_.pop_front();
      if (!status.ok()) return status;
      continue;
    }
    if (blocks_in_flight_ <= max_in_flight && !pool_->Done(front.job->ticket)) break;
    pool_->Wait(front.job->ticket);
    std::unique_ptr<Job> job = std::move(front.job);
    slots_.pop_front();
    --blocks_in_flight_;
    if (absl::Status s = WriteResult(*job); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status CsEtmDecodeTool::WriteResult(Job& job) {
  stats_.packets += job.stats.packets;
  stats_.samples += job.stats.samples;
  stats_.instruction_samples += job.stats.instruction_samples;
  stats_.branch_samples += job.stats.branch_samples;
  stats_.decoder_waits += job.stats.decoder_waits;
  if (job.errors > 0) {
    SourceErrors& errors = errors_[job.source];
    if (errors.count == 0) errors.first = job.first_error;
    errors.count += job.errors;
  }
  if (!job.status.ok()) return job.status;
  for (const std::vector<std::byte>& bytes : job.records) {
    if (absl::Status s = sink_->Emit(Record(bytes, 0)); !s.ok()) return s;
  }
  text_ += job.text;
  return absl::OkStatus();
}

absl::Status CsEtmDecodeTool::End(RecordSink& out, FeatureSet& features) {
  (void)features;
  sink_ = &out;
  if (absl::Status s = Flush(0); !s.ok()) return s;
  for (std::string& note : gatherer_.Finish()) warnings_.push_back(std::move(note));
  for (const auto& [source, errors] : errors_) {
    warnings_.push_back(absl::StrFormat("%d trace decode errors; the first: %s", errors.count,
                                        errors.first));
  }
  // Binaries are first looked up by whichever lane gets there first.
  std::vector<std::string> image_warnings = images_->TakeWarnings();
  std::sort(image_warnings.begin(), image_warnings.end());
  for (std::string& warning : image_warnings) warnings_.push_back(std::move(warning));
  if (!info_) {
    return absl::InvalidArgumentError(
        "the recording has no CoreSight AUXTRACE_INFO record: nothing to decode");
  }
  if (IsProfile(options_.format)) {
    NoCode no_code;
    BranchProfile total(no_code);
    total.SetBuildIds(build_ids_);
    for (const auto& [key, lane] : lanes_) {
      if (lane->profile() != nullptr) total.Add(*lane->profile());
    }
    total.SetLayouts(LayoutsOf(total, *images_));
    const profile::Format format = options_.format == OutputFormat::kAutoFdo
                                       ? profile::Format::kAutoFdo
                                       : profile::Format::kBolt;
    profile_ = total.ToProfile(format);
    if (!options_.profile_text) return absl::OkStatus();
    absl::StatusOr<ProfileText> text = WriteProfileText(profile_, format, options_.dso);
    if (!text.ok()) return text.status();
    text_ = std::move(text->text);
    bolt_binary_ = std::move(text->binary);
  }
  return absl::OkStatus();
}

int32_t CsEtmDecodeTool::Lane::PidOf(int32_t tid) {
  if (tid < 0) return tid;
  std::optional<machine::Thread> thread = tool_.machines_.host().FindThread(tid);
  return thread ? thread->pid : tid;
}

std::optional<machine::Map> CsEtmDecodeTool::Lane::FindMap(const PacketContext& context,
                                                     uint64_t address) {
  if (IsKernel(context, address)) return tool_.machines_.host().kernel_maps().Find(address, kernel_cache_);
  if (context.pid != cached_pid_ || !cached_maps_) {
    cached_pid_ = context.pid;
    cached_maps_ = tool_.machines_.host().FindUserMaps(context.pid);
    if (!cached_maps_) return std::nullopt;
  }
  return cached_maps_->Find(address, maps_cache_);
}

uint64_t CsEtmDecodeTool::Lane::KernelSlide(const machine::Map& text, const KernelCode& code) {
  if (code.image.is_core()) return 0;
  if (kernel_slide_) return *kernel_slide_;
  // perf names the relocation symbol in the kernel MMAP and puts its
  // runtime address in pgoff; simpleperf names _stext and starts the map
  // there, with pgoff 0.
  std::optional<machine::RelocationSymbol> symbol = tool_.machines_.host().kernel_relocation();
  std::optional<uint64_t> link;
  uint64_t runtime = text.start;
  if (symbol) {
    runtime = symbol->address;
    link = symbol->name == "_stext" ? code.stext : symbol->name == "_text" ? code.text : std::nullopt;
  } else if (text.start != 0) {  // a map of the whole space ([kernel.kallsyms]) says nothing
    link = code.stext ? code.stext : code.text;
  }
  kernel_slide_ = link ? runtime - *link : 0;
  return *kernel_slide_;
}

uint32_t CsEtmDecodeTool::Lane::ReadCode(const PacketContext& context, uint64_t address,
                                         uint32_t size, uint8_t* out) {
  std::optional<machine::Map> map = FindMap(context, address);
  if (!map || map->dso == nullptr || map->kind == machine::MapKind::kVdso) return 0;
  BinaryImages& images = *tool_.images_;
  if (map->kind == machine::MapKind::kKernel ||
      (images.has_kcore() && map->dso->kernel_space)) {
    // The kernel text (from vmlinux or kcore); with a kcore, modules too.
    const KernelCode* code = images.Kernel(*map->dso);
    if (code == nullptr) return 0;
    const uint64_t n = std::min<uint64_t>(size, map->end - address);
    return code->Read(address - KernelSlide(*map, *code), static_cast<uint32_t>(n), out);
  }
  if (map->IsIdentity()) return 0;
  const Image* image = images.Find(*map->dso);
  if (image == nullptr) return 0;
  uint64_t offset = map->DsoAddress(address);
  const uint64_t available = map->end - address;
  if (image->module) {
    // A module: its text where the kernel laid it out (elf/module_layout.h).
    return image->module->Read(offset, static_cast<uint32_t>(std::min<uint64_t>(size, available)),
                               out);
  }
  if (offset >= image->bytes.size()) return 0;
  uint64_t n = std::min<uint64_t>({size, available, image->bytes.size() - offset});
  std::memcpy(out, image->bytes.data() + offset, n);
  return static_cast<uint32_t>(n);
}

std::optional<CodeLocation> CsEtmDecodeTool::Lane::Locate(const PacketContext& context,
                                                          uint64_t address) {
  std::optional<machine::Map> map = FindMap(context, address);
  if (!map || map->dso == nullptr) return std::nullopt;
  if (map->kind == machine::MapKind::kKernel) {
    // The kernel's profile is in vmlinux link addresses, as simpleperf
    // writes it (its KernelDso::IpToVaddrInFile).
    const KernelCode* code = tool_.images_->Kernel(*map->dso);
    if (code != nullptr) return CodeLocation{map->dso, address - KernelSlide(*map, *code)};
  }
  // A module's offset is from its base (DsoAddress, pgoff 0); LayoutsOf
  // turns it into an offset from .text for the texts.
  return CodeLocation{map->dso, map->DsoAddress(address)};
}

std::optional<uint64_t> CsEtmDecodeTool::Lane::DirectBranchTarget(const PacketContext& context,
                                                            uint64_t address, Isa isa) {
  if (isa != Isa::kA64) return std::nullopt;
  uint8_t bytes[4];
  if (ReadCode(context, address, 4, bytes) != 4) return std::nullopt;
  uint32_t insn = static_cast<uint32_t>(bytes[0]) | (static_cast<uint32_t>(bytes[1]) << 8) |
                  (static_cast<uint32_t>(bytes[2]) << 16) | (static_cast<uint32_t>(bytes[3]) << 24);
  return A64DirectBranchTarget(insn, address);
}

absl::Status CsEtmDecodeTool::Lane::Emit(const SynthesizedSample& sample) {
  DecodeStats& stats = job_->stats;
  ++stats.samples;
  const bool instruction = sample.kind == SynthesizedSample::Kind::kInstruction;
  ++(instruction ? stats.instruction_samples : stats.branch_samples);
  if (tool_.options_.format == OutputFormat::kScript) {
    AppendScriptLine(sample);
    return absl::OkStatus();
  }
  if (tool_.options_.format != OutputFormat::kPerf) return absl::OkStatus();
  absl::StatusOr<std::vector<std::byte>> bytes = tool_.SampleRecord(sample);
  if (!bytes.ok()) return bytes.status();
  if (!bytes->empty()) job_->records.push_back(*std::move(bytes));
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::byte>> CsEtmDecodeTool::SampleRecord(
    const SynthesizedSample& sample) const {
  const bool instruction = sample.kind == SynthesizedSample::Kind::kInstruction;
  std::optional<size_t> event = instruction ? instructions_event_ : branches_event_;
  if (!event) return std::vector<std::byte>();
  const EventAttr& attr = output_events_.attrs()[*event];
  const SampleFormat& format = output_events_.format(*event);
  Sample out;
  out.identifier = attr.ids().front();
  out.id = attr.ids().front();
  out.ip = sample.ip;
  out.pid = static_cast<uint32_t>(sample.context.pid);
  out.tid = static_cast<uint32_t>(sample.context.tid);
  out.time = sample.time;
  out.addr = sample.addr;
  out.cpu = sample.cpu;
  out.period = sample.period;
  if (format.has(PERF_SAMPLE_BRANCH_STACK)) out.branch_stack.entries = sample.branches;
  std::vector<std::byte> body;
  EncodeSample(format, out, body);
  uint16_t misc = IsKernel(sample.context, sample.ip) ? PERF_RECORD_MISC_KERNEL
                                                      : PERF_RECORD_MISC_USER;
  return MakeRecordBytes(PERF_RECORD_SAMPLE, misc, body);
}

void CsEtmDecodeTool::Lane::AppendScriptLine(const SynthesizedSample& sample) {
  // perf 6.1's layout for -F pid,tid,ip,brstack.
  absl::StrAppendFormat(&job_->text, "%5d/%-5d  %16x", sample.context.pid, sample.context.tid,
                        sample.ip);
  for (const BranchEntry& entry : sample.branches) {
    absl::StrAppendFormat(&job_->text, " 0x%x/0x%x/P/-/-/0/ ", entry.from, entry.to);
  }
  absl::StrAppend(&job_->text, "\n");
}

}  // namespace perftk::cs_etm
