#include "unwind/unwind_tool.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/printable.h"
#include "base/status_prefix.h"
#include "machine/record_events.h"
#include "perf/describe.h"
#include "perf/features.h"
#include "pipeline/header_attr.h"

namespace perftk::unwind {
namespace {

constexpr uint64_t kStackFields = PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
#if defined(__aarch64__)
constexpr Arch kHostArch = Arch::kAarch64;
#else
constexpr Arch kHostArch = Arch::kX86_64;
#endif

bool HasStack(uint64_t sample_type) { return (sample_type & kStackFields) == kStackFields; }

bool AnyHasStack(const perf::EventList& events) {
  return std::any_of(events.attrs().begin(), events.attrs().end(),
                     [](const perf::EventAttr& attr) { return HasStack(attr.sample_type()); });
}

absl::StatusOr<Arch> RecordedArch(const perf::FeatureSet& features) {
  absl::StatusOr<std::string> name = perf::ReadStringFeature(features, HEADER_ARCH);
  if (!name.ok()) return kHostArch;  // a pipe: its ARCH comes as a record
  std::optional<Arch> arch = ArchFromName(*name);
  if (!arch) {
    return absl::UnimplementedError(absl::StrCat("unwinding a recording of arch '",
                                                 base::Printable(*name),
                                                 "' is not supported (x86_64, aarch64)"));
  }
  return *arch;
}

}  // namespace

UnwindTool::UnwindTool(UnwindSettings settings) : settings_(std::move(settings)) {}

UnwindTool::~UnwindTool() {
  batches_.reset();  // no thread may still read the windows
}

void UnwindTool::ConvertAttr(perf::EventAttr& attr) const {
  if ((attr.sample_type() & kStackFields) != kStackFields) return;
  uint64_t sample_type = attr.sample_type() | PERF_SAMPLE_CALLCHAIN;
  attr.SetU64(attr_offset::kFlags, attr.flags() & ~(uint64_t{1} << kAttrFlagExcludeCallchainUser));
  if (!settings_.keep_stack) {
    sample_type &= ~kStackFields;
    attr.SetU64(attr_offset::kSampleRegsUser, 0);
    attr.SetU32(attr_offset::kSampleStackUser, 0);
  }
  attr.set_sample_type(sample_type);
}

absl::Status UnwindTool::Begin(perf::Header& header) {
  const bool has_stacks = AnyHasStack(header.events);
  absl::StatusOr<Arch> arch = RecordedArch(header.features);
  if (!arch.ok() && has_stacks) return arch.status();
  arch_ = arch;
  // Without a readable BUILD_ID feature, binaries are taken by path alone.
  const perf::BuildIdsByPath build_ids =
      perf::ReadBuildIdsByPath(header.features).value_or(perf::BuildIdsByPath());
  lanes_.resize(std::max<size_t>(1, settings_.jobs));
  for (Lane& lane : lanes_) lane.files = std::make_unique<ModuleFiles>(settings_.symfs, build_ids);
  // The caller unwinds too, but leaves the threads a window's worth to go
  // on with while it reads the next one.
  batches_ = std::make_unique<pipeline::OrderedBatches>(
      pipeline::OrderedBatches::Options{.jobs = lanes_.size(),
                                        .chunk = kSamplesPerTake,
                                        .max_in_flight = kWindowsInFlight,
                                        .max_items_in_flight = kSamplesInFlight,
                                        .caller_leaves = SampleWindows::kMaxSamples});
  input_events_ = header.events;
  any_stacks_ = has_stacks;
  passes_all_through_ = !has_stacks && header.layout == perf::DataLayout::kFile;
  for (perf::EventAttr& attr : header.events.mutable_attrs()) ConvertAttr(attr);
  header.events.Reindex();
  // perf report --header-only lists the attrs EVENT_DESC keeps: the same
  // change, or the header would still announce stack copies.
  if (auto desc = header.features.find(HEADER_EVENT_DESC); desc != header.features.end()) {
    absl::Status s = pipeline::RewriteEventDescAttrs(
        desc->second, [this](perf::EventAttr& attr) { ConvertAttr(attr); });
    if (!s.ok()) return s;
  }
  output_events_ = header.events;
  return absl::OkStatus();
}

absl::Status UnwindTool::Fail(const perf::Record& record, const absl::Status& status) const {
  return perf::RecordError(record, status);
}

ProcessUnwinder* UnwindTool::UnwinderFor(Lane& lane, uint16_t cpumode, int32_t pid) const {
  const machine::Machine* machine = model().Find(cpumode, pid);
  if (machine == nullptr) return nullptr;
  std::shared_ptr<machine::Maps> maps = machine->FindUserMaps(pid);
  if (maps == nullptr) return nullptr;
  std::unique_ptr<ProcessUnwinder>& unwinder = lane.unwinders[pid];
  if (unwinder == nullptr || unwinder->maps() != maps.get()) {
    unwinder = std::make_unique<ProcessUnwinder>(pid, std::move(maps), *lane.files,
                                                 settings_.take_over_frames);
  }
  return unwinder.get();
}

void UnwindTool::UnwindSample(Lane& lane, const perf::SampleFormat& format, uint16_t cpumode,
                              base::Bytes stack_copy, perf::Sample& sample) const {
  absl::StatusOr<InitialRegisters> registers =
      InitialRegistersOf(*arch_, format.regs_user_mask, sample.regs_user);
  if (!registers.ok()) {
    ++lane.stats.no_registers;
    return;
  }
  UnwoundStack stack;
  stack.stop = UnwindStop::kUnknownMap;  // no process to unwind in
  const int32_t pid = static_cast<int32_t>(sample.pid);
  ProcessUnwinder* unwinder =
      format.has(PERF_SAMPLE_TID) ? UnwinderFor(lane, cpumode, pid) : nullptr;
  if (stack_copy.empty()) {
    // No stack recorded (a thread's first instruction, its stack not yet
    // touched): perf finds no user frame, not even the registers' pc, and
    // neither do we.
    stack.stop = UnwindStop::kStackTooShort;
  } else if (unwinder != nullptr) {
    stack = unwinder->Unwind(static_cast<int32_t>(sample.tid), *registers, stack_copy,
                             settings_.max_frames);
  }
  lane.stats.frames += stack.frames.size();
  lane.stats.frames_taken_over += stack.taken_over;
  if (stack.stop == UnwindStop::kOutermost || stack.stop == UnwindStop::kDepthLimit) {
    ++lane.stats.full;
  } else if (stack.frames.size() >= 2) {
    ++lane.stats.partly[static_cast<size_t>(stack.stop)];
  } else {
    ++lane.stats.not_at_all[static_cast<size_t>(stack.stop)];
  }
  if (stack.frames.empty()) return;
  // The recorded chain up to its user part, then the unwound frames.
  std::vector<uint64_t>& chain = sample.callchain;
  chain.erase(std::find(chain.begin(), chain.end(), PERF_CONTEXT_USER), chain.end());
  chain.push_back(PERF_CONTEXT_USER);
  chain.insert(chain.end(), stack.frames.begin(), stack.frames.end());
}

UnwindStats UnwindTool::stats() const {
  UnwindStats total = stats_;
  for (const Lane& lane : lanes_) total.Add(lane.stats);
  return total;
}

bool UnwindTool::idle() const {
  // Records wait on the stage only behind windows not yet written.
  return windows_.empty();
}

absl::Status UnwindTool::QueueSample(const perf::Record& record, pipeline::RecordSink& out) {
  ++stats_.samples;
  if (!any_stacks_ && idle()) return out.Emit(record);
  absl::StatusOr<size_t> index = input_events_.IndexOf(record);
  if (!index.ok()) return Fail(record, index.status());
  const perf::SampleFormat& format = input_events_.format(*index);
  if (!HasStack(format.sample_type)) return PassOn(record, out);
  if (!arch_.ok()) return Fail(record, arch_.status());
  PendingSample& pending = windows_.AddSample();
  // The stack copy (most of the sample) is read where it lies when the
  // record stays valid and the output drops it.
  const bool stack_in_input = record.lasting() && !settings_.keep_stack;
  perf::SampleFieldOffsets at;
  if (absl::Status s = perf::DecodeSampleInto(
          format, record.body(), pending.sample, &at,
          stack_in_input ? perf::UserStackCopy::kLeaveInPayload : perf::UserStackCopy::kCopy);
      !s.ok()) {
    windows_.open().samples.pop_back();
    return Fail(record, s);
  }
  ++stats_.with_stack;
  pending.event = *index;
  pending.misc = record.misc();
  pending.file_offset = record.file_offset();
  pending.stack_in_input = stack_in_input && at.stack_user != perf::SampleFieldOffsets::kAbsent;
  pending.stack = pending.stack_in_input ? record.body().subspan(at.stack_user, at.stack_user_size)
                                         : base::Bytes();
  return windows_.OpenIsFull() ? Flush(out) : absl::OkStatus();
}

absl::Status UnwindTool::PassOn(const perf::Record& record, pipeline::RecordSink& out) {
  if (idle()) return out.Emit(record);
  if (absl::Status s = Flush(out); !s.ok()) return s;
  return batches_->Pass(record, out, [this, &out](uint64_t) { return WriteOldestWindow(out); });
}

absl::Status UnwindTool::WriteSample(const PendingSample& pending, pipeline::RecordSink& out) {
  record_.assign(perf::kRecordHeaderSize, std::byte{0});
  perf::EncodeSample(output_events_.format(pending.event), pending.sample, record_);
  if (absl::Status s = perf::SetRecordHeader(PERF_RECORD_SAMPLE, pending.misc, record_); !s.ok()) {
    return base::Prefixed(absl::StrFormat("offset %#x: SAMPLE record: ", pending.file_offset), s);
  }
  return out.Emit(perf::Record(record_, pending.file_offset));
}

void UnwindTool::UnwindWindowPart(size_t lane, SampleWindow& window, size_t begin, size_t end) {
  TakeBuildIds(lanes_[lane]);
  for (size_t i = begin; i < end; ++i) {
    PendingSample& pending = window.samples[i];
    const perf::UserStack& copy = pending.sample.stack_user;
    const base::Bytes stack =
        pending.stack_in_input
            ? pending.stack
            : base::Bytes(copy.data.data(), std::min<uint64_t>(copy.dyn_size, copy.data.size()));
    UnwindSample(lanes_[lane], input_events_.format(pending.event),
                 pending.misc & PERF_RECORD_MISC_CPUMODE_MASK, stack, pending.sample);
  }
}

absl::Status UnwindTool::WriteOldestWindow(pipeline::RecordSink& out) {
  for (const PendingSample& pending : windows_.oldest().samples) {
    if (absl::Status s = WriteSample(pending, out); !s.ok()) return s;
  }
  windows_.RetireOldest();
  return absl::OkStatus();
}

absl::Status UnwindTool::Flush(pipeline::RecordSink& out) {
  if (windows_.open().samples.empty()) return absl::OkStatus();
  SampleWindow* window = &windows_.Close();
  return batches_
      ->Submit(
          window->samples.size(),
          [this, window](size_t lane, size_t begin, size_t end) {
            UnwindWindowPart(lane, *window, begin, end);
          },
          [this, &out](uint64_t) { return WriteOldestWindow(out); })
      .status();
}

absl::Status UnwindTool::Drain(pipeline::RecordSink& out) {
  if (batches_ == nullptr) return absl::OkStatus();
  if (absl::Status s = Flush(out); !s.ok()) return s;
  return batches_->Drain([this, &out](uint64_t) { return WriteOldestWindow(out); });
}

absl::Status UnwindTool::RewriteHeaderAttr(const perf::Record& record, pipeline::RecordSink& out) {
  absl::StatusOr<std::vector<std::byte>> bytes = pipeline::RewriteHeaderAttr(
      record, input_events_, output_events_, [this](perf::EventAttr& attr) { ConvertAttr(attr); });
  if (!bytes.ok()) return Fail(record, bytes.status());
  any_stacks_ = AnyHasStack(input_events_);
  return out.Emit(perf::Record(*bytes, record.file_offset()));
}

absl::Status UnwindTool::FollowPipeFeature(const perf::Record& record, pipeline::RecordSink& out) {
  absl::StatusOr<perf::HeaderFeatureRecord> view = perf::HeaderFeatureRecord::From(record);
  if (!view.ok()) return Fail(record, view.status());
  if (view->feature() == HEADER_ARCH) {
    perf::FeatureSet arch_only;
    arch_only[HEADER_ARCH].assign(view->data().begin(), view->data().end());
    arch_ = RecordedArch(arch_only);  // an error only matters to samples with stacks
  }
  return out.Emit(record);
}

absl::Status UnwindTool::BeforeModelChange(const perf::Record& record, pipeline::RecordSink& out) {
  (void)record;
  return idle() ? absl::OkStatus() : Drain(out);
}

absl::Status UnwindTool::FollowMachine(const perf::Record& record, pipeline::RecordSink& out) {
  if (record.type() == PERF_RECORD_EXIT) {
    absl::StatusOr<machine::TaskEvent> task = machine::TaskEventOf(record);
    if (!task.ok()) return Fail(record, task.status());
    if (task->pid == task->tid) {
      for (Lane& lane : lanes_) lane.unwinders.erase(task->pid);
    }
  }
  return out.Emit(record);
}

absl::Status UnwindTool::Process(const perf::Record& record, pipeline::RecordSink& out) {
  if (record.type() == PERF_RECORD_SAMPLE) return QueueSample(record, out);
  if (record.type() == PERF_RECORD_HEADER_BUILD_ID) NoteBuildId(record);
  const bool changes_unwinding = machine::ChangesMachines(record.type()) ||
                                 record.type() == PERF_RECORD_HEADER_ATTR ||
                                 record.type() == PERF_RECORD_HEADER_FEATURE;
  if (!changes_unwinding) return PassOn(record, out);
  // (The samples before a record that changes the model are written by
  // now: BeforeModelChange.)
  if (!idle()) {
    if (absl::Status s = Drain(out); !s.ok()) return s;
  }
  if (machine::ChangesMachines(record.type())) return FollowMachine(record, out);
  switch (record.type()) {
    case PERF_RECORD_HEADER_ATTR:
      return RewriteHeaderAttr(record, out);
    case PERF_RECORD_HEADER_FEATURE:
      return FollowPipeFeature(record, out);
    default:
      return out.Emit(record);
  }
}

void UnwindTool::NoteBuildId(const perf::Record& record) {
  // A pipe's BUILD_ID feature, one DSO a record: binaries are then looked
  // up by it as by the file's. A malformed one is passed on as it is.
  absl::StatusOr<perf::HeaderBuildIdRecord> view = perf::HeaderBuildIdRecord::From(record);
  if (!view.ok()) return;
  base::MutexLock lock(build_ids_mu_);
  build_ids_.emplace_back(std::string(view->filename()),
                          base::BuildId::FromBytes(view->build_id()));
  build_ids_count_.store(build_ids_.size(), std::memory_order_release);
}

void UnwindTool::TakeBuildIds(Lane& lane) {
  if (lane.build_ids_taken == build_ids_count_.load(std::memory_order_acquire)) return;
  base::MutexLock lock(build_ids_mu_);
  bool looks_again = false;
  for (; lane.build_ids_taken < build_ids_.size(); ++lane.build_ids_taken) {
    const auto& [name, id] = build_ids_[lane.build_ids_taken];
    looks_again |= lane.files->AddBuildId(name, id);
  }
  // An unwinder may remember stacks cut short where no file was found.
  if (looks_again) lane.unwinders.clear();
}

void UnwindTool::Abandon() {
  if (batches_ != nullptr) batches_->Abandon();
  windows_.Clear();
}

absl::Status UnwindTool::End(pipeline::RecordSink& out, perf::FeatureSet& features) {
  (void)features;
  if (absl::Status s = Drain(out); !s.ok()) return s;
  // The lanes are idle now: their files' errors are theirs no longer.
  for (const Lane& lane : lanes_) {
    if (lane.files != nullptr && !lane.files->failure().ok()) return lane.files->failure();
  }
  return absl::OkStatus();
}

}  // namespace perftk::unwind
