#include "cs_etm/decode_lane.h"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <utility>

#include "cs_etm/a64_branch.h"
#include "cs_etm/opencsd_guard.h"

namespace perftk::cs_etm {

DecodeLane::~DecodeLane() {
  base::MutexLock lock(OpenCsdSetupMutex());
  decoders_.clear();
}

void DecodeLane::Run(BlockJob& job) {
  job_ = &job;
  job.status = Decode(job);
  job_ = nullptr;
}

bool DecodeLane::TakesPaths() const { return synthesizer_ != nullptr || profile_ != nullptr; }

absl::Status DecodeLane::Consume(std::span<const Packet> packets) {
  for (const Packet& packet : packets) {  // as many as OpenCSD's path makes
    job_->stats.packets += packet.kind == PacketKind::kPath ? packet.path().size() : 1;
  }
  if (synthesizer_ != nullptr) {
    if (absl::Status s = synthesizer_->Consume(packets); !s.ok()) return s;
  }
  if (profile_ != nullptr) return profile_->Consume(packets);
  return absl::OkStatus();
}

absl::Status DecodeLane::EndBlock() {
  if (synthesizer_ != nullptr) {
    if (absl::Status s = synthesizer_->EndBlock(); !s.ok()) return s;
  }
  if (profile_ != nullptr) return profile_->EndBlock();
  return absl::OkStatus();
}

absl::StatusOr<TraceDecoder*> DecodeLane::DecoderFor(const BlockJob& job) {
  auto it = decoders_.find(job.source);
  if (it != decoders_.end() && it->second.generation == job.setup->generation) {
    return it->second.decoder.get();
  }
  DropDecoder(job.source);
  base::MutexLock lock(OpenCsdSetupMutex());
  absl::StatusOr<std::unique_ptr<TraceDecoder>> decoder =
      TraceDecoder::Create(job.setup->info, job.setup->trace_ids, job.block.formatted,
                           static_cast<uint32_t>(job.source), *this, inputs_.options.packet_batch);
  if (!decoder.ok()) return decoder.status();
  KeyedDecoder& entry = decoders_[job.source];
  entry.generation = job.setup->generation;
  entry.decoder = std::move(*decoder);
  return entry.decoder.get();
}

void DecodeLane::DropDecoder(int64_t source) {
  auto it = decoders_.find(source);
  if (it == decoders_.end()) return;
  base::MutexLock lock(OpenCsdSetupMutex());
  decoders_.erase(it);
}

absl::Status DecodeLane::Decode(BlockJob& job) {
  absl::Status status = DecodeBlock(job);
  // Counts find their binaries in this block's model, whatever happened.
  if (profile_ != nullptr) profile_->Flush();
  return status;
}

absl::Status DecodeLane::DecodeBlock(BlockJob& job) {
  if (job.model_generation != model_generation_) {  // a process may have a new address space
    model_generation_ = job.model_generation;
    cached_pid_ = -2;
    cached_maps_.reset();
    kernel_slide_.reset();
  }
  const OutputFormat format = inputs_.options.format;
  // A synthesizer keeps no flows (the job brings them): one per setup, so
  // that a sample's CPU does not depend on the lane that made it.
  if (!IsProfile(format) && (!synthesizer_ || synthesizer_generation_ != job.setup->generation)) {
    std::map<uint8_t, uint32_t> cpu_of_trace_id;
    for (const auto& [cpu, id] : job.setup->trace_ids) cpu_of_trace_id[id] = cpu;
    synthesizer_ = std::make_unique<SampleSynthesizer>(inputs_.options.itrace, cpu_of_trace_id,
                                                       static_cast<DecodeEnvironment&>(*this),
                                                       static_cast<SampleOutput&>(*this));
    synthesizer_generation_ = job.setup->generation;
  }
  if (!profile_ && IsProfile(format)) {
    profile_ = std::make_unique<BranchProfile>(static_cast<CodeLocator&>(*this));
    profile_->SetBuildIds(inputs_.build_ids);
  }
  if (synthesizer_) synthesizer_->BeginBlock(kNoCpu, job.block.time, *job.flows, job.ids);
  for (MapMemo& memo : map_memos_) memo.valid = false;  // the model may have changed
  // Pages go only between blocks: decoders keep spans of them.
  if (code_pages_.size() > kMaxCodePages) code_pages_.clear();
  if (inputs_.options.decoder == DecoderChoice::kFast) {
    absl::StatusOr<bool> decoded = DecodeFast(job);
    if (!decoded.ok()) return decoded.status();
    if (*decoded) return absl::OkStatus();
  }
  absl::StatusOr<TraceDecoder*> decoder = DecoderFor(job);
  if (!decoder.ok()) return decoder.status();
  const uint64_t waits_before = (*decoder)->waits();
  absl::Status status = (*decoder)->Decode(job.block, *this);
  job.stats.decoder_waits = (*decoder)->waits() - waits_before;
  job.stats.opencsd_blocks = 1;
  job.errors = (*decoder)->decode_errors();
  job.first_error = (*decoder)->first_error();
  // The next block's errors must be its own: start it from a new decoder.
  if (job.errors > 0 || !status.ok()) DropDecoder(job.source);
  return status;
}

absl::StatusOr<bool> DecodeLane::DecodeFast(BlockJob& job) {
  absl::StatusOr<FastTraceDecoder*> decoder = FastDecoderFor(job);
  if (!decoder.ok()) return decoder.status();
  if (*decoder == nullptr) return false;
  absl::StatusOr<FastTraceDecoder::Outcome> outcome = (*decoder)->Decode(job.block, *this);
  KeyedFastDecoder& entry = fast_decoders_[job.source];
  if (!outcome.ok() || *outcome == FastTraceDecoder::Outcome::kNotFollowed) {
    // As for OpenCSD, a block after this one starts from a new decoder.
    entry.decoder.reset();
    if (!outcome.ok()) return outcome.status();
    entry.opencsd_only = ++entry.refusals >= KeyedFastDecoder::kMaxRefusals;
    return false;
  }
  entry.refusals = 0;
  job.stats.fast_blocks = 1;
  job.errors = (*decoder)->decode_errors();
  job.first_error = (*decoder)->first_error();
  if (job.errors > 0) entry.decoder.reset();
  return true;
}

absl::StatusOr<FastTraceDecoder*> DecodeLane::FastDecoderFor(const BlockJob& job) {
  KeyedFastDecoder& entry = fast_decoders_[job.source];
  if (!entry.set_up || entry.generation != job.setup->generation) {
    entry = KeyedFastDecoder{};
    entry.set_up = true;
    entry.generation = job.setup->generation;
    entry.opencsd_only = !FastTraceDecoder::Supports(job.setup->info, job.block.formatted,
                                                     static_cast<uint32_t>(job.source));
  }
  if (entry.opencsd_only) return nullptr;
  if (entry.decoder) return entry.decoder.get();
  absl::StatusOr<std::unique_ptr<FastTraceDecoder>> decoder = FastTraceDecoder::Create(
      job.setup->info, job.setup->trace_ids, job.block.formatted, static_cast<uint32_t>(job.source),
      static_cast<DecodeEnvironment&>(*this), static_cast<CodeReader&>(*this), code_blocks_,
      inputs_.options.packet_batch);
  if (!decoder.ok()) return decoder.status();
  entry.decoder = std::move(*decoder);
  return entry.decoder.get();
}

int32_t DecodeLane::PidOf(int32_t tid) {
  if (tid < 0) return tid;
  std::optional<machine::Thread> thread = inputs_.machines.host().FindThread(tid);
  return thread ? thread->pid : tid;
}

std::optional<machine::Map> DecodeLane::FindMap(const PacketContext& context, uint64_t address) {
  const bool kernel = IsKernel(context, address);
  // The model holds still while a block decodes: the maps found last for
  // this address space answer most lookups.
  for (MapMemo& memo : map_memos_) {
    if (memo.valid && memo.kernel == kernel && (kernel || memo.pid == context.pid) &&
        memo.map.Contains(address)) {
      if (&memo != &map_memos_[0]) std::swap(memo, map_memos_[0]);
      return map_memos_[0].map;
    }
  }
  std::optional<machine::Map> map = LookUpMap(context.pid, kernel, address);
  if (map) {
    map_memos_[1] = map_memos_[0];
    map_memos_[0] = MapMemo{true, kernel, context.pid, *map};
  }
  return map;
}

std::optional<machine::Map> DecodeLane::LookUpMap(int32_t pid, bool kernel, uint64_t address) {
  const machine::Machine& host = inputs_.machines.host();
  if (kernel) return host.kernel_maps().Find(address, kernel_cache_);
  if (pid != cached_pid_ || !cached_maps_) {
    cached_pid_ = pid;
    cached_maps_ = host.FindUserMaps(pid);
    if (!cached_maps_) return std::nullopt;
  }
  return cached_maps_->Find(address, maps_cache_);
}

uint64_t DecodeLane::KernelSlide(const machine::Map& text, const KernelCode& code) {
  if (code.image.is_core()) return 0;
  if (kernel_slide_) return *kernel_slide_;
  // perf names the relocation symbol in the kernel MMAP and puts its
  // runtime address in pgoff; simpleperf names _stext and starts the map
  // there, with pgoff 0.
  std::optional<machine::RelocationSymbol> symbol = inputs_.machines.host().kernel_relocation();
  std::optional<uint64_t> link;
  uint64_t runtime = text.start;
  if (symbol) {
    runtime = symbol->address;
    link = symbol->name == "_stext"  ? code.stext
           : symbol->name == "_text" ? code.text
                                     : std::nullopt;
  } else if (text.start != 0) {  // a map of the whole space ([kernel.kallsyms]) says nothing
    link = code.stext ? code.stext : code.text;
  }
  kernel_slide_ = link ? runtime - *link : 0;
  return *kernel_slide_;
}

uint32_t DecodeLane::ReadCode(const PacketContext& context, uint64_t address, uint32_t size,
                              uint8_t* out) {
  std::optional<machine::Map> map = FindMap(context, address);
  if (!map || map->dso == nullptr) return 0;
  BinaryImages& images = inputs_.images;
  if (map->kind == machine::MapKind::kKernel || (images.has_kcore() && map->dso->kernel_space)) {
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

CodeSpan DecodeLane::CodeAt(const PacketContext& context, uint64_t address) {
  // The same bytes ReadCode reads, as long a stretch as one read could give.
  std::optional<machine::Map> map = FindMap(context, address);
  if (!map || map->dso == nullptr) return {};
  BinaryImages& images = inputs_.images;
  const uint64_t available = map->end - address;
  if (map->kind == machine::MapKind::kKernel || (images.has_kcore() && map->dso->kernel_space)) {
    const KernelCode* code = images.Kernel(*map->dso);
    if (code == nullptr) return {};
    return PageAt(
        code, address - KernelSlide(*map, *code), available,
        [code](uint64_t at, uint32_t size, uint8_t* out) { return code->Read(at, size, out); });
  }
  if (map->IsIdentity()) return {};
  const Image* image = images.Find(*map->dso);
  if (image == nullptr) return {};
  const uint64_t offset = map->DsoAddress(address);
  if (image->module) {
    const elf::ModuleLayout& layout = *image->module;
    return PageAt(image, offset, available, [&layout](uint64_t at, uint32_t size, uint8_t* out) {
      return layout.Read(at, size, out);
    });
  }
  if (offset >= image->bytes.size()) return {};
  const uint64_t n = std::min<uint64_t>(available, image->bytes.size() - offset);
  return CodeSpan{
      image, offset, {reinterpret_cast<const uint8_t*>(image->bytes.data()) + offset, n}};
}

CodeSpan DecodeLane::PageAt(const void* image, uint64_t offset, uint64_t limit,
                            absl::FunctionRef<uint32_t(uint64_t, uint32_t, uint8_t*)> read) {
  constexpr uint64_t kPage = 4096;
  const uint64_t page = offset & ~(kPage - 1);
  auto it = code_pages_.find({image, page});
  if (it == code_pages_.end()) {
    CodePage fresh;
    fresh.bytes.resize(kPage);
    fresh.bytes.resize(read(page, kPage, fresh.bytes.data()));
    it = code_pages_.emplace(std::pair{image, page}, std::move(fresh)).first;
  }
  const std::vector<uint8_t>& bytes = it->second.bytes;
  const uint64_t at = offset - page;
  if (at + 4 <= bytes.size()) {
    const uint64_t n = std::min<uint64_t>(bytes.size() - at, limit);
    return CodeSpan{image, offset, {bytes.data() + at, n}};
  }
  // The page's start cannot be read, or not this far: read from `offset`
  // itself, for this one lookup.
  scratch_.resize(kPage - at);
  scratch_.resize(read(offset, static_cast<uint32_t>(kPage - at), scratch_.data()));
  const uint64_t n = std::min<uint64_t>(scratch_.size(), limit);
  return CodeSpan{&scratch_, offset, {scratch_.data(), n}};
}

std::optional<CodeLocation> DecodeLane::Locate(const PacketContext& context, uint64_t address) {
  std::optional<machine::Map> map = FindMap(context, address);
  if (!map || map->dso == nullptr) return std::nullopt;
  if (map->kind == machine::MapKind::kKernel) {
    // The kernel's profile is in vmlinux link addresses, as simpleperf
    // writes it (its KernelDso::IpToVaddrInFile).
    const KernelCode* code = inputs_.images.Kernel(*map->dso);
    if (code != nullptr) return CodeLocation{map->dso, address - KernelSlide(*map, *code)};
  }
  // A module's offset is from its base (DsoAddress, pgoff 0); the tool
  // turns it into an offset from .text for the texts (lane_profiles.h).
  return CodeLocation{map->dso, map->DsoAddress(address)};
}

std::optional<uint64_t> DecodeLane::DirectBranchTarget(const PacketContext& context,
                                                       uint64_t address, Isa isa) {
  if (isa != Isa::kA64) return std::nullopt;
  uint8_t bytes[4];
  if (ReadCode(context, address, 4, bytes) != 4) return std::nullopt;
  return A64DirectBranchTarget(A64Word(bytes), address);
}

absl::Status DecodeLane::Emit(const SynthesizedSample& sample) {
  DecodeStats& stats = job_->stats;
  ++stats.samples;
  const bool instruction = sample.kind == SynthesizedSample::Kind::kInstruction;
  ++(instruction ? stats.instruction_samples : stats.branch_samples);
  return inputs_.encoder.Encode(sample, job_->samples);
}

}  // namespace perftk::cs_etm
