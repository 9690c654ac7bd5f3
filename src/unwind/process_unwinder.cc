#include "unwind/process_unwinder.h"

#include <dwarf.h>
#include <gelf.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdlib>
#include <utility>

#include "base/printable.h"

namespace perftk::unwind {
namespace {

char* debuginfo_path = nullptr;  // libdw's default: build-id and debuglink dirs

// x86-64 DWARF registers: %rbx, %rsp, and 0 .. 15 the general registers.
constexpr unsigned kRbx = 3;
constexpr unsigned kRsp = 7;
constexpr unsigned kX86_64GeneralRegisters = 16;
// How many times one sample's unwinding resumes after libdw lost %rbx
// (one per lazy-binding trampoline on the stack, in practice).
constexpr int kMaxResumes = 8;

// Modules come with their file descriptor; separate debug files (with
// .debug_frame) are looked up the standard way.
// The lane's files while this thread unwinds: where libdw's debuginfo
// lookups report an error of the system's (they would pass as "no file").
thread_local ModuleFiles* unwinding_files = nullptr;

int FindDebuginfo(Dwfl_Module* module, void** userdata, const char* name, Dwarf_Addr base,
                  const char* file, const char* debuglink, GElf_Word crc, char** found) {
  errno = 0;  // libdw does not promise to set it
  const int fd =
      dwfl_standard_find_debuginfo(module, userdata, name, base, file, debuglink, crc, found);
  if (fd < 0 && (errno == EMFILE || errno == ENFILE) && unwinding_files != nullptr) {
    unwinding_files->NoteFailure(OpenFailure(name != nullptr ? name : "", errno));
  }
  return fd;
}

const Dwfl_Callbacks kDwflCallbacks = {
    .find_elf = nullptr,
    .find_debuginfo = FindDebuginfo,
    .section_address = dwfl_offline_section_address,
    .debuginfo_path = &debuginfo_path,
};

}  // namespace

const Dwfl_Thread_Callbacks ProcessUnwinder::kThreadCallbacks = {
    .next_thread = &ProcessUnwinder::NextThread,
    .get_thread = nullptr,
    .memory_read = &ProcessUnwinder::MemoryRead,
    .set_initial_registers = &ProcessUnwinder::SetInitialRegisters,
    .detach = nullptr,
    .thread_detach = nullptr,
};

ProcessUnwinder::ProcessUnwinder(int32_t pid, std::shared_ptr<const machine::Maps> maps,
                                 ModuleFiles& files, bool take_over_frames)
    : pid_(pid), maps_(std::move(maps)), files_(files), take_over_frames_(take_over_frames) {}

ProcessUnwinder::~ProcessUnwinder() {
  reported_.clear();  // their names before libdw's mappings go
  if (dwfl_ != nullptr) dwfl_end(dwfl_);
}

void ProcessUnwinder::Reset() {
  reported_.clear();
  if (dwfl_ != nullptr) dwfl_end(dwfl_);
  dwfl_ = nullptr;
  attached_ = false;
  steps_.clear();
  last_ready_.reset();
  memos_.clear();
}

pid_t ProcessUnwinder::NextThread(Dwfl*, void* arg, void** thread_arg) {
  if (*thread_arg != nullptr) return 0;  // one thread per unwinding: the sample's
  auto* self = static_cast<ProcessUnwinder*>(arg);
  *thread_arg = self;
  return self->attempt_->tid;
}

bool ProcessUnwinder::MemoryRead(Dwfl*, Dwarf_Addr addr, Dwarf_Word* result, void* arg) {
  Attempt& attempt = *static_cast<ProcessUnwinder*>(arg)->attempt_;
  uint64_t word = 0;
  const bool ok = attempt.memory->Read(addr, word);
  if (attempt.memo != nullptr) attempt.memo->AddRead({.addr = addr, .value = word, .ok = ok});
  if (!ok) return false;
  *result = word;
  return true;
}

bool ProcessUnwinder::SetInitialRegisters(Dwfl_Thread* thread, void* arg) {
  auto* self = static_cast<ProcessUnwinder*>(arg);
  const InitialRegisters& registers = *self->attempt_->registers;
  for (const DwarfRegister& reg : registers.registers) {
    Dwarf_Word value = reg.value;
    if (!dwfl_thread_state_registers(thread, reg.number, 1, &value)) return false;
  }
  dwfl_thread_state_register_pc(thread, registers.pc);
  return true;
}

ProcessUnwinder::ModuleState ProcessUnwinder::PrepareModule(uint64_t pc) {
  std::optional<machine::Map> map = maps_->Find(pc, cache_);
  if (map && map == last_ready_) return ModuleState::kReady;
  // A module reported when a file was mapped here must not serve libdw now.
  const bool old_module_here = dwfl_ != nullptr && dwfl_addrmodule(dwfl_, pc) != nullptr;
  if (!map || map->IsIdentity() || map->dso == nullptr) {
    return old_module_here ? ModuleState::kStale : ModuleState::kNoMap;
  }
  const ModuleFile* file = files_.Find(map->dso);
  if (file == nullptr) return old_module_here ? ModuleState::kStale : ModuleState::kNoFile;
  const uint64_t bias = file->LoadBias(*map);
  if (dwfl_ == nullptr) dwfl_ = dwfl_begin(&kDwflCallbacks);
  if (dwfl_ == nullptr) return ModuleState::kNoFile;
  if (Dwfl_Module* known = dwfl_addrmodule(dwfl_, pc)) {
    auto it = reported_.find(known);
    const bool current =
        it != reported_.end() && it->second.dso == map->dso && it->second.bias == bias;
    if (!current) return ModuleState::kStale;
    last_ready_ = map;
    return ModuleState::kReady;
  }
  const int fd = dup(file->fd());
  if (fd < 0) {
    files_.NoteFailure(OpenFailure(file->path(), errno));
    return ModuleState::kNoFile;
  }
  Dwfl_Module* added =
      dwfl_report_elf(dwfl_, map->dso->name.c_str(), file->path().c_str(), fd, bias, true);
  if (added == nullptr) {
    close(fd);
    return ModuleState::kNoFile;
  }
  if (reported_.contains(added) || Overlaps(added)) return ModuleState::kStale;
  Reported& reported = reported_[added];
  reported.dso = map->dso;
  reported.bias = bias;
  Dwarf_Addr elf_bias = 0;
  if (Elf* elf = dwfl_module_getelf(added, &elf_bias); elf != nullptr) {
    GElf_Ehdr header;
    if (gelf_getehdr(elf, &header) != nullptr) x86_64_ = header.e_machine == EM_X86_64;
    size_t size = 0;
    if (const char* raw = elf_rawfile(elf, &size); raw != nullptr) {
      reported.mapped = base::MappedInputName(raw, size, base::Printable(file->path()));
    }
  }
  if (dwfl_addrmodule(dwfl_, pc) != added) return ModuleState::kStale;
  if (!attached_) attached_ = dwfl_attach_state(dwfl_, nullptr, pid_, &kThreadCallbacks, this);
  if (!attached_) return ModuleState::kNoFile;
  last_ready_ = map;
  return ModuleState::kReady;
}

bool ProcessUnwinder::Overlaps(Dwfl_Module* added) const {
  Dwarf_Addr low = 0, high = 0;
  dwfl_module_info(added, nullptr, &low, &high, nullptr, nullptr, nullptr, nullptr);
  for (const auto& [module, reported] : reported_) {
    Dwarf_Addr other_low = 0, other_high = 0;
    dwfl_module_info(module, nullptr, &other_low, &other_high, nullptr, nullptr, nullptr, nullptr);
    if (low < other_high && other_low < high) return true;
  }
  return false;
}

StepUses* ProcessUnwinder::StepAt(uint64_t pc) {
  if (auto it = steps_.find(pc); it != steps_.end()) return &it->second;
  Dwfl_Module* module = dwfl_addrmodule(dwfl_, pc);
  if (module == nullptr) return nullptr;  // not remembered: a module may come here
  return &steps_.emplace(pc, ModuleStep(module, pc)).first->second;
}

StepUses ProcessUnwinder::ModuleStep(Dwfl_Module* module, uint64_t pc) const {
  for (auto* cfi_of : {&dwfl_module_eh_cfi, &dwfl_module_dwarf_cfi}) {  // libdw's order
    Dwarf_Addr bias = 0;
    Dwarf_CFI* cfi = cfi_of(module, &bias);
    Dwarf_Frame* frame = nullptr;
    if (cfi != nullptr && dwarf_cfi_addrframe(cfi, pc - bias, &frame) == 0) {
      StepUses step =
          StepUsesOf(frame, frame_registers_ == 0 ? RegisterSet::kMaxRegisters : frame_registers_);
      free(frame);
      return step;
    }
  }
  return StepUses{};
}

int ProcessUnwinder::OnFrame(Dwfl_Frame* frame, void* arg) {
  auto* self = static_cast<ProcessUnwinder*>(arg);
  Attempt& attempt = *self->attempt_;
  attempt.resume.reset();  // libdw did step from the last frame
  if (attempt.caller_unknown) {
    attempt.guess_dropped = true;
    return DWARF_CB_ABORT;
  }
  Dwarf_Addr pc = 0;
  if (!dwfl_frame_pc(frame, &pc, nullptr)) return DWARF_CB_ABORT;
  if (attempt.memo != nullptr && self->RememberOrTakeOver(attempt, frame, pc)) {
    return DWARF_CB_ABORT;
  }
  // The module must be there before asking whether this is an activation:
  // libdw answers by unwinding one step further.
  attempt.last_module = self->PrepareModule(pc);
  if (attempt.last_module == ModuleState::kStale) {
    attempt.stale = true;
    return DWARF_CB_ABORT;
  }
  if (attempt.last_module == ModuleState::kNoFile) return DWARF_CB_ABORT;
  bool activation = false;
  if (!dwfl_frame_pc(frame, &pc, &activation)) return DWARF_CB_ABORT;
  const uint64_t where = activation ? pc : pc - 1;
  if (attempt.skip_first) {
    attempt.skip_first = false;
  } else {
    attempt.frames.push_back(where);
    if (attempt.frames.size() >= attempt.max_frames) {
      attempt.depth_reached = true;
      return DWARF_CB_ABORT;
    }
  }
  attempt.last_activation = activation;
  StepUses* step = attempt.last_module == ModuleState::kReady ? self->StepAt(where) : nullptr;
  attempt.caller_unknown = step == nullptr || !step->described;
  if (self->x86_64_) self->RecoverRbx(attempt, frame, step, where);
  if (attempt.memo != nullptr) {
    self->own_states_.back() = OwnState{.step = step, .found = true, .activation = activation};
  }
  return DWARF_CB_OK;
}

bool ProcessUnwinder::ProbeRegisters(Dwfl_Frame* frame) {
  if (!registers_probed_) {
    registers_probed_ = true;
    constexpr unsigned kProbed = 2 * RegisterSet::kMaxRegisters;
    size_t highest = 0;
    for (unsigned regno = 0; regno < kProbed; ++regno) {
      Dwarf_Word value = 0;
      if (dwfl_frame_reg(frame, regno, &value) < 0) continue;
      ++frame_registers_;
      highest = regno;
    }
    rows_possible_ = frame_registers_ > 0 && frame_registers_ <= RegisterSet::kMaxRegisters &&
                     highest == frame_registers_ - 1;
  }
  return rows_possible_;
}

void ProcessUnwinder::FillRow(Dwfl_Frame* frame, const RegisterSet& wanted) {
  row_.assign(frame_registers_, 0);
  row_known_ = RegisterSet();
  row_set_ = RegisterSet();
  AddToRow(frame, wanted);
}

void ProcessUnwinder::AddToRow(Dwfl_Frame* frame, const RegisterSet& wanted) {
  const size_t count = frame_registers_;
  for (size_t w = 0; w < 2; ++w) {
    for (uint64_t bits = wanted.word(w) & ~row_known_.word(w); bits != 0; bits &= bits - 1) {
      const size_t regno = w * 64 + static_cast<size_t>(std::countr_zero(bits));
      if (regno >= count) break;
      row_known_.Add(regno);
      Dwarf_Word value = 0;
      if (dwfl_frame_reg(frame, static_cast<unsigned>(regno), &value) == 0) {
        row_[regno] = value;
        row_set_.Add(regno);
      }
    }
  }
}

bool ProcessUnwinder::RememberOrTakeOver(Attempt& attempt, Dwfl_Frame* frame, uint64_t pc) {
  own_states_.push_back(OwnState{});
  const bool rows_possible = ProbeRegisters(frame);  // before any StepAt reads rules
  // Only an ordinary frame's state is resumable: libdw steps from the first
  // frame, and from one after a signal frame, without the usual pc - 1.
  if (attempt.frames.size() < 2 || attempt.last_activation || !rows_possible) {
    attempt.memo->AddState(pc, RegisterSet(), RegisterSet(), {});
    return false;
  }
  // The registers worth reading: those the rest depended on the last time
  // a state at this pc was met, and those a match with the thread's last
  // unwinding compares.
  const StepUses* step = StepAt(pc - 1);
  FillRow(frame, step != nullptr ? step->last_depends : RegisterSet::All());
  if (attempt.previous != nullptr) {
    const UnwindMemo& previous = *attempt.previous;
    for (size_t state = previous.FindPc(pc); state < previous.states();
         state = previous.FindPc(pc, state + 1)) {
      AddToRow(frame, previous.depends(state));
      if (previous.Agrees(state, row_known_, row_set_, row_) && TakeOver(attempt, state)) {
        own_states_.pop_back();
        return true;
      }
    }
  }
  attempt.memo->AddState(pc, row_known_, row_set_, row_);
  return false;
}

void ProcessUnwinder::NoteDependencies(const Attempt& attempt) {
  UnwindMemo& memo = *attempt.memo;
  const size_t own = attempt.taken_over ? attempt.own_states : memo.states();
  RegisterSet later = own < memo.states() ? memo.depends(own) : RegisterSet();
  for (size_t i = own; i-- > 0;) {
    const OwnState& state = own_states_[i];
    RegisterSet depends;  // a frame not found: that depended on its pc alone
    if (state.found) {
      const bool described = state.step != nullptr && !state.activation;
      depends = described ? state.step->Before(later) : RegisterSet::All();
      if (described) {
        std::span<UnwindMemo::Read> reads = memo.StepReads(i);
        for (size_t q = 0; q < reads.size(); ++q) {
          reads[q].matters = state.step->ValueMatters(q, reads.size(), later);
        }
        state.step->last_depends = depends;
      }
    }
    memo.set_depends(i, depends);
    later = depends;
  }
}

bool ProcessUnwinder::TakeOver(Attempt& attempt, size_t state) {
  const UnwindMemo& previous = *attempt.previous;
  const std::span<const UnwindMemo::Read> reads = previous.ReadsFrom(state);
  for (const UnwindMemo::Read& read : reads) {
    uint64_t word = 0;
    const bool ok = attempt.memory->Peek(read.addr, word);
    if (ok != read.ok || (ok && read.matters && word != read.value)) return false;
  }
  for (const UnwindMemo::Read& read : reads) {
    if (!read.ok) attempt.memory->NoteFailedRead(read.addr);
  }
  attempt.own_states = attempt.memo->states();
  attempt.memo->AppendTail(previous, state);
  const std::vector<uint64_t>& frames = previous.frames();
  if (state < frames.size()) {
    attempt.frames.insert(attempt.frames.end(), frames.begin() + static_cast<ptrdiff_t>(state),
                          frames.end());
    attempt.frames_taken_over = frames.size() - state;
  }
  attempt.taken_over = true;
  attempt.previous_ending = previous.ending();
  return true;
}

ProcessUnwinder::ThreadMemo& ProcessUnwinder::MemoFor(int32_t tid) {
  ++memo_clock_;
  ThreadMemo* oldest = nullptr;
  for (ThreadMemo& slot : memos_) {
    if (slot.tid == tid) {
      slot.last_use = memo_clock_;
      return slot;
    }
    if (oldest == nullptr || slot.last_use < oldest->last_use) oldest = &slot;
  }
  ThreadMemo& slot = memos_.size() < kMemoThreads ? memos_.emplace_back() : *oldest;
  slot.tid = tid;
  slot.last_use = memo_clock_;
  slot.memo.Reset(0, 0);
  return slot;
}

// libdw (0.188 and before) starts x86-64 CFI from ABI rules that give the
// "same value" rule of the callee-saved %rbx (DWARF register 3) to %rax
// (register 0) instead. So where a frame's CFI row does not mention %rbx
// (a function that has not saved it yet, or never touches it), libdw leaves
// the caller's %rbx unset, although the psABI says it is the callee's. That
// costs nothing until a caller's CFA is an expression over %rbx: glibc's
// lazy-binding trampoline _dl_runtime_resolve keeps its frame in %rbx
// (CFA = rbx + 32), so a sample in the first instructions of _dl_fixup, or
// in a function that calls nothing and never saves %rbx, ends at the
// trampoline, and libdw calls that the outermost frame. perf's libunwind
// applies the psABI rule and unwinds on to main. So does perftk: it keeps
// %rbx as the psABI does, from frame to frame, and when a frame's step needs
// a %rbx libdw has not set, it resumes the unwinding from that frame's
// state with %rbx set (as a new first frame at the same pc, which gives the
// same step).
void ProcessUnwinder::RecoverRbx(Attempt& attempt, Dwfl_Frame* frame, const StepUses* step,
                                 uint64_t where) {
  Dwarf_Word value = 0;
  if (dwfl_frame_reg(frame, kRbx, &value) == 0) {
    attempt.rbx = value;
    return;
  }
  if (!attempt.rbx || step == nullptr || !step->described || step->outermost ||
      !step->always.Has(kRbx) || attempt.resumes >= kMaxResumes) {
    return;
  }
  InitialRegisters& resume = attempt.resume.emplace();
  for (unsigned regno = 0; regno < kX86_64GeneralRegisters; ++regno) {
    Dwarf_Word known = 0;
    if (regno == kRbx) {
      known = *attempt.rbx;
    } else if (dwfl_frame_reg(frame, regno, &known) != 0) {
      continue;
    }
    resume.registers.push_back({.number = static_cast<int>(regno), .value = known});
    if (regno == kRsp) resume.sp = known;
  }
  resume.pc = where;
  if (resume.sp == 0) attempt.resume.reset();  // no state to start from
}

int ProcessUnwinder::Resume(Attempt& attempt, int result) {
  UnwindMemo* memo = attempt.memo;
  const InitialRegisters* registers = attempt.registers;
  InitialRegisters from;
  while (attempt.resume && !attempt.stale && !attempt.depth_reached && !attempt.taken_over &&
         !attempt.memory->read_failed()) {
    from = std::move(*attempt.resume);
    attempt.resume.reset();
    ++attempt.resumes;
    attempt.registers = &from;
    attempt.skip_first = true;
    attempt.caller_unknown = false;
    attempt.memo = nullptr;  // the memo holds libdw's own unwinding only
    result = dwfl_getthread_frames(dwfl_, attempt.tid, &OnFrame, this);
  }
  attempt.memo = memo;
  attempt.registers = registers;  // not `from`, gone on return
  return result;
}

UnwoundStack ProcessUnwinder::TryUnwind(Attempt& attempt, base::Bytes stack) {
  UnwoundStack out;
  SampleMemory memory(attempt.registers->sp, stack, maps_.get(), files_);
  attempt.memory = &memory;
  attempt_ = &attempt;
  const ModuleState first = PrepareModule(attempt.registers->pc);
  if (first == ModuleState::kStale) {
    attempt.stale = true;
    return out;
  }
  if (first != ModuleState::kReady) {
    out.stop = UnwindStop::kUnknownMap;
    return out;
  }
  const int result = Resume(attempt, dwfl_getthread_frames(dwfl_, attempt.tid, &OnFrame, this));
  attempt_ = nullptr;
  if (attempt.stale) return out;
  // Frames taken over end as the unwinding they come from ended, unless
  // they pass the depth limit.
  const UnwindMemo::Ending ending =
      attempt.taken_over
          ? attempt.previous_ending
          : UnwindMemo::Ending{.last_module_ready = attempt.last_module == ModuleState::kReady,
                               .guess_dropped = attempt.guess_dropped,
                               .result = result};
  if (attempt.frames.size() >= attempt.max_frames) {
    const size_t cut = attempt.frames.size() - attempt.max_frames;
    attempt.frames.resize(attempt.max_frames);
    attempt.frames_taken_over -= std::min(cut, attempt.frames_taken_over);
    attempt.depth_reached = true;
  }
  if (attempt.memo != nullptr) {
    NoteDependencies(attempt);
    attempt.memo->frames().assign(attempt.frames.begin(), attempt.frames.end());
    attempt.memo->ending() = ending;
    // A resumed unwinding is no longer libdw's alone: UnwindMemo's model.
    attempt.memo->set_usable(!attempt.depth_reached && attempt.resumes == 0);
  }
  out.frames = std::move(attempt.frames);
  out.taken_over = attempt.frames_taken_over;
  if (attempt.depth_reached) {
    out.stop = UnwindStop::kDepthLimit;
  } else if (!ending.last_module_ready) {
    out.stop = UnwindStop::kUnknownMap;
  } else if (ending.guess_dropped) {
    out.stop = UnwindStop::kNoCfi;
  } else if (memory.read_past_stack()) {
    out.stop = UnwindStop::kStackTooShort;
  } else if (memory.read_failed()) {
    out.stop = UnwindStop::kUnrecordedMemory;
  } else if (ending.result == 0) {
    out.stop = UnwindStop::kOutermost;
  } else {
    out.stop = UnwindStop::kNoCfi;
  }
  return out;
}

UnwoundStack ProcessUnwinder::Unwind(int32_t tid, const InitialRegisters& registers,
                                     base::Bytes stack, size_t max_frames) {
  // libdw's callbacks report to this unwinder's files until Unwind returns.
  struct Reporting {
    explicit Reporting(ModuleFiles& files) { unwinding_files = &files; }
    ~Reporting() { unwinding_files = nullptr; }
  } reporting(files_);
  for (int round = 0;; ++round) {
    if (steps_.size() >= kMaxCfiAnswers) steps_.clear();
    Attempt attempt;
    attempt.tid = tid;
    attempt.registers = &registers;
    attempt.max_frames = max_frames;
    attempt.frames.reserve(std::min<size_t>(max_frames, 64));  // most stacks are shallower
    ThreadMemo* slot = nullptr;
    if (take_over_frames_) {
      slot = &MemoFor(tid);
      const UnwindMemo& last = slot->memo;
      if (last.usable() && last.maps_generation() == maps_->generation() &&
          last.epoch() == rebuilds_) {
        attempt.previous = &last;
      }
      scratch_.Reset(maps_->generation(), rebuilds_);
      own_states_.clear();
      attempt.memo = &scratch_;
    }
    UnwoundStack out = TryUnwind(attempt, stack);
    attempt_ = nullptr;
    if (!attempt.stale) {
      if (slot != nullptr) std::swap(slot->memo, scratch_);
      return out;
    }
    Reset();
    ++rebuilds_;
    if (round == 1) {
      out.frames.clear();
      out.stop = UnwindStop::kUnknownMap;
      return out;
    }
  }
}

}  // namespace perftk::unwind
