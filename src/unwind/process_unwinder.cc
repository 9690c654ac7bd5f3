#include "unwind/process_unwinder.h"

#include <dwarf.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <utility>

namespace perftk::unwind {
namespace {

char* debuginfo_path = nullptr;  // libdw's default: build-id and debuglink dirs

// Modules come with their file descriptor; separate debug files (with
// .debug_frame) are looked up the standard way.
const Dwfl_Callbacks kDwflCallbacks = {
    .find_elf = nullptr,
    .find_debuginfo = dwfl_standard_find_debuginfo,
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
                                 ModuleFiles& files)
    : pid_(pid), maps_(std::move(maps)), files_(files) {}

ProcessUnwinder::~ProcessUnwinder() {
  if (dwfl_ != nullptr) dwfl_end(dwfl_);
}

void ProcessUnwinder::Reset() {
  if (dwfl_ != nullptr) dwfl_end(dwfl_);
  dwfl_ = nullptr;
  attached_ = false;
  reported_.clear();
  has_cfi_.clear();
  last_ready_.reset();
}

pid_t ProcessUnwinder::NextThread(Dwfl*, void* arg, void** thread_arg) {
  if (*thread_arg != nullptr) return 0;  // one thread per unwinding: the sample's
  auto* self = static_cast<ProcessUnwinder*>(arg);
  *thread_arg = self;
  return self->attempt_->tid;
}

bool ProcessUnwinder::MemoryRead(Dwfl*, Dwarf_Addr addr, Dwarf_Word* result, void* arg) {
  auto* self = static_cast<ProcessUnwinder*>(arg);
  uint64_t word = 0;
  if (!self->attempt_->memory->Read(addr, word)) return false;
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
  if (fd < 0) return ModuleState::kNoFile;
  Dwfl_Module* added =
      dwfl_report_elf(dwfl_, map->dso->name.c_str(), file->path().c_str(), fd, bias, true);
  if (added == nullptr) {
    close(fd);
    return ModuleState::kNoFile;
  }
  if (reported_.contains(added) || Overlaps(added)) return ModuleState::kStale;
  reported_[added] = Reported{map->dso, bias};
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

bool ProcessUnwinder::HasCfi(uint64_t pc) {
  if (auto it = has_cfi_.find(pc); it != has_cfi_.end()) return it->second;
  Dwfl_Module* module = dwfl_addrmodule(dwfl_, pc);
  if (module == nullptr) return false;  // not remembered: a module may come here
  if (has_cfi_.size() >= kMaxCfiAnswers) has_cfi_.clear();
  const bool found = ModuleHasCfi(module, pc);
  has_cfi_.emplace(pc, found);
  return found;
}

bool ProcessUnwinder::ModuleHasCfi(Dwfl_Module* module, uint64_t pc) {
  for (auto* cfi_of : {&dwfl_module_eh_cfi, &dwfl_module_dwarf_cfi}) {  // libdw's order
    Dwarf_Addr bias = 0;
    Dwarf_CFI* cfi = cfi_of(module, &bias);
    Dwarf_Frame* frame = nullptr;
    if (cfi != nullptr && dwarf_cfi_addrframe(cfi, pc - bias, &frame) == 0) {
      free(frame);
      return true;
    }
  }
  return false;
}

int ProcessUnwinder::OnFrame(Dwfl_Frame* frame, void* arg) {
  auto* self = static_cast<ProcessUnwinder*>(arg);
  Attempt& attempt = *self->attempt_;
  if (attempt.caller_unknown) {
    attempt.guess_dropped = true;
    return DWARF_CB_ABORT;
  }
  Dwarf_Addr pc = 0;
  if (!dwfl_frame_pc(frame, &pc, nullptr)) return DWARF_CB_ABORT;
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
  attempt.frames.push_back(where);
  if (attempt.frames.size() >= attempt.max_frames) {
    attempt.depth_reached = true;
    return DWARF_CB_ABORT;
  }
  attempt.caller_unknown = attempt.last_module != ModuleState::kReady || !self->HasCfi(where);
  return DWARF_CB_OK;
}

UnwoundStack ProcessUnwinder::TryUnwind(Attempt& attempt, Bytes stack) {
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
  const int result = dwfl_getthread_frames(dwfl_, attempt.tid, &OnFrame, this);
  attempt_ = nullptr;
  out.frames = std::move(attempt.frames);
  if (attempt.depth_reached) {
    out.stop = UnwindStop::kDepthLimit;
  } else if (attempt.last_module != ModuleState::kReady) {
    out.stop = UnwindStop::kUnknownMap;
  } else if (attempt.guess_dropped) {
    out.stop = UnwindStop::kNoCfi;
  } else if (memory.read_past_stack()) {
    out.stop = UnwindStop::kStackTooShort;
  } else if (memory.read_failed()) {
    out.stop = UnwindStop::kUnrecordedMemory;
  } else if (result == 0) {
    out.stop = UnwindStop::kOutermost;
  } else {
    out.stop = UnwindStop::kNoCfi;
  }
  return out;
}

UnwoundStack ProcessUnwinder::Unwind(int32_t tid, const InitialRegisters& registers, Bytes stack,
                                     size_t max_frames) {
  for (int round = 0;; ++round) {
    Attempt attempt;
    attempt.tid = tid;
    attempt.registers = &registers;
    attempt.max_frames = max_frames;
    attempt.frames.reserve(std::min<size_t>(max_frames, 64));  // most stacks are shallower
    UnwoundStack out = TryUnwind(attempt, stack);
    attempt_ = nullptr;
    if (!attempt.stale) return out;
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
