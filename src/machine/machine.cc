#include "machine/machine.h"

#include <limits>
#include <mutex>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace perftk::machine {
namespace {

constexpr absl::string_view kHostKernelPrefix = "[kernel.kallsyms";
constexpr absl::string_view kGuestKernelPrefix = "[guest.kernel.kallsyms";
constexpr uint32_t kProtExec = 0x4;  // PROT_EXEC

std::string KernelName(int32_t machine_pid) {
  if (machine_pid == kHostMachinePid) return "[kernel.kallsyms]";
  if (machine_pid == kDefaultGuestMachinePid) return "[guest.kernel.kallsyms]";
  return absl::StrCat("[guest.kernel.kallsyms.", machine_pid, "]");
}

bool IsKernelCpumode(uint16_t cpumode) {
  return cpumode == PERF_RECORD_MISC_KERNEL || cpumode == PERF_RECORD_MISC_GUEST_KERNEL;
}

bool IsUserCpumode(uint16_t cpumode) {
  return cpumode == PERF_RECORD_MISC_USER || cpumode == PERF_RECORD_MISC_GUEST_USER;
}

// The end of [start, start + len), or an error if the range is empty or runs
// past the top of the address space.
absl::StatusOr<uint64_t> RangeEnd(uint64_t start, uint64_t len, absl::string_view what) {
  if (len == 0) {
    return absl::InvalidArgumentError(absl::StrFormat("%s at %#x has length 0", what, start));
  }
  if (len > std::numeric_limits<uint64_t>::max() - start) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s [%#x + %#x] runs past the end of the address space", what, start, len));
  }
  return start + len;
}

absl::Status CheckTaskIds(int32_t pid, int32_t tid, absl::string_view what) {
  if (pid < 0 || tid < 0) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s with negative pid/tid %d/%d", what, pid, tid));
  }
  return absl::OkStatus();
}

// "[kernel.kallsyms]_text" -> "_text"; empty if there is no ']'.
absl::string_view RelocationSymbolName(absl::string_view filename) {
  size_t bracket = filename.find(']');
  if (bracket == absl::string_view::npos) return {};
  return filename.substr(bracket + 1);
}

}  // namespace

Machine::Machine(int32_t pid, size_t exited_threads_kept)
    : pid_(pid), exited_threads_kept_(exited_threads_kept), kernel_name_(KernelName(pid)) {}

bool Machine::IsKernelMmapName(absl::string_view filename) const {
  if (absl::StartsWith(filename, kHostKernelPrefix)) return true;
  return !is_host() && absl::StartsWith(filename, kGuestKernelPrefix);
}

absl::Status Machine::Apply(const MmapEvent& event) {
  base::WriterMutexLock lock(mu_);
  if (IsKernelCpumode(CpumodeOf(event.misc))) {
    if (event.len == 0 && event.start == 0 && IsKernelMmapName(event.filename)) {
      return ApplyKernelMmap(event, std::numeric_limits<uint64_t>::max());
    }
    absl::StatusOr<uint64_t> end = RangeEnd(event.start, event.len, "kernel MMAP");
    if (!end.ok()) return end.status();
    return ApplyKernelMmap(event, *end);
  }
  if (absl::Status ids = CheckTaskIds(event.pid, event.tid, "MMAP"); !ids.ok()) return ids;
  absl::StatusOr<uint64_t> end = RangeEnd(event.start, event.len, "MMAP");
  if (!end.ok()) return end.status();
  return ApplyUserMmap(event, *end);
}

absl::Status Machine::ApplyKernelMmap(const MmapEvent& event, uint64_t end) {
  const bool kernel_text = IsKernelMmapName(event.filename);
  const bool module = !kernel_text && (absl::StartsWith(event.filename, "/") ||
                                       absl::StartsWith(event.filename, "["));
  Map map;
  map.start = event.start;
  map.end = end;
  map.pgoff = event.pgoff;
  map.prot = event.prot;
  map.flags = event.flags;
  map.kind = kernel_text ? MapKind::kKernel : module ? MapKind::kModule : MapKind::kKernelExtra;
  map.dso = dsos_.Intern(module ? absl::string_view(event.filename) : kernel_name_, event.build_id,
                         FileId{}, /*kernel_space=*/true);
  absl::Status inserted = kernel_maps_->Mutate([&](Maps::Editor& editor) {
    if (kernel_text) {
      std::vector<uint64_t> old_text;
      for (const Map& m : editor.maps()) {
        if (m.kind == MapKind::kKernel) old_text.push_back(m.start);
      }
      for (uint64_t start : old_text) editor.Remove(start);
    }
    return editor.Insert(map);
  });
  if (!inserted.ok() || !kernel_text) return inserted;
  absl::string_view symbol = RelocationSymbolName(event.filename);
  if (event.pgoff != 0 && !symbol.empty()) {
    kernel_relocation_ = RelocationSymbol{std::string(symbol), event.pgoff};
  } else {
    kernel_relocation_.reset();
  }
  return absl::OkStatus();
}

absl::Status Machine::ApplyUserMmap(const MmapEvent& event, uint64_t end) {
  Map map;
  map.start = event.start;
  map.end = end;
  map.prot = event.prot;
  map.flags = event.flags;
  map.kind = UserMapKind(event.filename, event.flags);
  map.pgoff = map.kind == MapKind::kVdso ? 0 : event.pgoff;
  // Executable memory with no file is named, as perf names it, after the
  // process's perf map, where JIT runtimes list their symbols (perf uses the
  // pid inside the process's pid namespace; the model knows only this one).
  std::string perf_map;
  absl::string_view dso_name = event.filename;
  if ((map.kind == MapKind::kAnon || map.kind == MapKind::kNoFile) && (event.prot & kProtExec)) {
    perf_map = absl::StrCat("/tmp/perf-", event.pid, ".map");
    dso_name = perf_map;
  }
  map.dso = dsos_.Intern(dso_name, event.build_id,
                         FileId{event.maj, event.min, event.ino, event.ino_generation},
                         /*kernel_space=*/false);
  std::shared_ptr<Maps> maps = FindOrAddThreadLocked(event.pid, event.tid).process->maps;
  return maps->Mutate([&](Maps::Editor& editor) { return editor.Insert(map); });
}

absl::Status Machine::Apply(const CommEvent& event) {
  if (absl::Status ids = CheckTaskIds(event.pid, event.tid, "COMM"); !ids.ok()) return ids;
  base::WriterMutexLock lock(mu_);
  ThreadEntry& thread = FindOrAddThreadLocked(event.pid, event.tid);
  thread.comm = event.comm;
  // An exec keeps the old maps, as perf does: the COMM comes at the start of
  // the exec, before the new image is mapped, and samples taken in between
  // still unwind through the old image. The new image's maps replace the
  // old ones where they overlap.
  return absl::OkStatus();
}

absl::Status Machine::Apply(const ForkEvent& event) {
  if (absl::Status ids = CheckTaskIds(event.pid, event.tid, "FORK"); !ids.ok()) return ids;
  if (absl::Status ids = CheckTaskIds(event.ppid, event.ptid, "FORK parent"); !ids.ok()) {
    return ids;
  }
  if (event.tid == event.ptid) {
    return absl::InvalidArgumentError(absl::StrFormat("FORK of thread %d from itself", event.tid));
  }
  base::WriterMutexLock lock(mu_);
  const ThreadEntry& parent = FindOrAddThreadLocked(event.ppid, event.ptid);
  std::shared_ptr<Process> parent_process = parent.process;
  std::string comm = parent.comm;

  RemoveThreadLocked(event.tid);
  std::shared_ptr<Process> process = parent_process;
  if (event.pid != event.ppid) {
    process = std::make_shared<Process>();
    process->maps = parent_process->maps->Clone();
    processes_[event.pid] = process;
  }
  AddThreadLocked(event.pid, event.tid, std::move(process)).comm = std::move(comm);
  return absl::OkStatus();
}

absl::Status Machine::Apply(const ExitEvent& event) {
  if (absl::Status ids = CheckTaskIds(event.pid, event.tid, "EXIT"); !ids.ok()) return ids;
  base::WriterMutexLock lock(mu_);
  auto it = threads_.find(event.tid);
  if (it == threads_.end() || it->second.exited) return absl::OkStatus();
  it->second.exited = true;
  exited_.push_back(event.tid);
  while (exited_.size() > exited_threads_kept_) {
    const int32_t oldest = exited_.front();
    exited_.pop_front();
    // A tid reused since its EXIT belongs to a live thread now.
    auto old = threads_.find(oldest);
    if (old != threads_.end() && old->second.exited) RemoveThreadLocked(oldest);
  }
  return absl::OkStatus();
}

absl::Status Machine::Apply(const KsymbolEvent& event) {
  base::WriterMutexLock lock(mu_);
  if (event.unregister()) {
    kernel_maps_->Mutate([&](Maps::Editor& editor) {
      const Map* map = editor.Find(event.addr);
      if (map != nullptr && map->kind == MapKind::kKsymbol) editor.Remove(event.addr);
    });
    return absl::OkStatus();
  }
  absl::StatusOr<uint64_t> end = RangeEnd(event.addr, event.len, "KSYMBOL");
  if (!end.ok()) return end.status();
  Map map;
  map.start = event.addr;
  map.end = *end;
  map.kind = MapKind::kKsymbol;
  map.dso = dsos_.Intern(event.name, base::BuildId(), FileId{}, /*kernel_space=*/true);
  return kernel_maps_->Mutate([&](Maps::Editor& editor) {
    if (editor.Find(event.addr) != nullptr) return absl::OkStatus();
    return editor.Insert(map);
  });
}

std::optional<Map> Machine::FindMap(int32_t pid, uint16_t cpumode, uint64_t addr) const {
  cpumode = CpumodeOf(cpumode);
  if (IsKernelCpumode(cpumode)) {
    if (std::optional<Map> map = kernel_maps_->Find(addr)) return map;
    // perf grows the kernel text map to the end of its last kallsyms symbol,
    // past the text the MMAP announced (.init.text and the like): an address
    // above the kernel text that no other kernel map covers is in it.
    std::optional<Map> below = kernel_maps_->FindAtOrBelow(addr);
    if (below && below->kind == MapKind::kKernel) return below;
    return std::nullopt;
  }
  if (!IsUserCpumode(cpumode)) return std::nullopt;
  base::ReaderMutexLock lock(mu_);
  auto it = processes_.find(pid);
  if (it == processes_.end()) return std::nullopt;
  return it->second->maps->Find(addr);
}

std::shared_ptr<Maps> Machine::FindUserMaps(int32_t pid) const {
  base::ReaderMutexLock lock(mu_);
  auto it = processes_.find(pid);
  if (it == processes_.end()) return nullptr;
  return it->second->maps;
}

std::optional<RelocationSymbol> Machine::kernel_relocation() const {
  base::ReaderMutexLock lock(mu_);
  return kernel_relocation_;
}

Thread Machine::ToThread(int32_t tid, const ThreadEntry& entry) const {
  return Thread{entry.pid, tid, entry.comm, entry.process->maps};
}

std::optional<Thread> Machine::FindThread(int32_t tid) const {
  base::ReaderMutexLock lock(mu_);
  auto it = threads_.find(tid);
  if (it == threads_.end()) return std::nullopt;
  return ToThread(tid, it->second);
}

absl::StatusOr<Thread> Machine::FindOrAddThread(int32_t pid, int32_t tid) {
  if (absl::Status ids = CheckTaskIds(pid, tid, "thread"); !ids.ok()) return ids;
  base::WriterMutexLock lock(mu_);
  return ToThread(tid, FindOrAddThreadLocked(pid, tid));
}

size_t Machine::thread_count() const {
  base::ReaderMutexLock lock(mu_);
  return threads_.size();
}

size_t Machine::process_count() const {
  base::ReaderMutexLock lock(mu_);
  return processes_.size();
}

Machine::ThreadEntry& Machine::FindOrAddThreadLocked(int32_t pid, int32_t tid) {
  auto it = threads_.find(tid);
  if (it != threads_.end()) {
    if (it->second.pid == pid) return it->second;
    RemoveThreadLocked(tid);
  }
  std::shared_ptr<Process>& process = processes_[pid];
  if (process == nullptr) process = std::make_shared<Process>();
  return AddThreadLocked(pid, tid, process);
}

Machine::ThreadEntry& Machine::AddThreadLocked(int32_t pid, int32_t tid,
                                               std::shared_ptr<Process> process) {
  ++process->threads;
  ThreadEntry& entry = threads_[tid];
  entry = ThreadEntry{pid, "", std::move(process)};
  return entry;
}

void Machine::RemoveThreadLocked(int32_t tid) {
  auto it = threads_.find(tid);
  if (it == threads_.end()) return;
  const int32_t pid = it->second.pid;
  std::shared_ptr<Process> process = std::move(it->second.process);
  threads_.erase(it);
  if (--process->threads > 0) return;
  auto owner = processes_.find(pid);
  if (owner != processes_.end() && owner->second == process) processes_.erase(owner);
}

}  // namespace perftk::machine
