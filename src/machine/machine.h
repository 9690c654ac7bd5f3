// A Machine is one kernel and its processes: the host, or one guest VM.
//
// It has one kernel address space (kernel text, modules, KSYMBOL maps, shared
// by every thread) and one user address space per process. The threads of a
// process share that process's Maps; FORK of a new process copies the
// parent's; COMM with the exec flag keeps the process's Maps, as perf does
// (the new image's MMAPs replace what they overlap); EXIT keeps the thread
// findable, as perf does, until kExitedThreadsKept later exits have passed;
// then it is forgotten, and a process whose last known thread is forgotten
// goes too, so memory follows live processes, not the event count. A pid or tid first seen
// in an event creates a thread with an empty comm (perf does the same).
//
// Thread-safe: Apply and FindOrAddThread take the machine lock exclusively,
// lookups take it shared (lock order: machine, then Maps). Results are copies.
#ifndef PERFTK_MACHINE_MACHINE_H_
#define PERFTK_MACHINE_MACHINE_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <shared_mutex>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/shared_mutex.h"
#include "machine/dso.h"
#include "machine/events.h"
#include "machine/map.h"
#include "machine/maps.h"

namespace perftk::machine {

// perf's HOST_KERNEL_ID and DEFAULT_GUEST_KERNEL_ID.
inline constexpr int32_t kHostMachinePid = -1;
inline constexpr int32_t kDefaultGuestMachinePid = 0;

struct Thread {
  int32_t pid = 0;
  int32_t tid = 0;
  std::string comm;
  std::shared_ptr<Maps> maps;  // the process's user address space
};

// The kernel's relocation symbol: "_text" at `address`, from the kernel
// MMAP's filename suffix and pgoff. Symbolizers shift kallsyms or vmlinux
// symbols by it (see shared/reference/aslr.md section 3).
struct RelocationSymbol {
  std::string name;
  uint64_t address = 0;
  friend bool operator==(const RelocationSymbol&, const RelocationSymbol&) = default;
};

class Machine {
 public:
  // How many exited threads stay findable: perf keeps a thread (and its
  // maps) after its EXIT, and samples taken while it exits come after the
  // EXIT record. The oldest exited thread beyond this many is let go.
  static constexpr size_t kExitedThreadsKept = 512;

  explicit Machine(int32_t pid = kHostMachinePid, size_t exited_threads_kept = kExitedThreadsKept);
  Machine(const Machine&) = delete;
  Machine& operator=(const Machine&) = delete;

  int32_t pid() const { return pid_; }
  bool is_host() const { return pid_ == kHostMachinePid; }
  // The kernel Dso's name: "[kernel.kallsyms]", "[guest.kernel.kallsyms]"
  // or "[guest.kernel.kallsyms.<pid>]".
  const std::string& kernel_name() const { return kernel_name_; }

  // Kernel-space MMAPs (cpumode KERNEL or GUEST_KERNEL) go to the kernel
  // address space: a filename starting with the kernel's name
  // ("[kernel.kallsyms]_text"; guests also "[guest.kernel.kallsyms...]")
  // replaces the kernel text map and, if pgoff != 0, sets the relocation
  // symbol; a filename starting with '/' or another '[' is a module; any
  // other name is an extra kernel map (x86 entry trampolines). The rest go
  // to the user address space of `pid`.
  // InvalidArgument, with nothing changed, for len 0 (except perf's
  // start 0 / len 0 kernel MMAP, which covers the whole address space),
  // start + len past 2^64, or a negative user pid/tid.
  absl::Status Apply(const MmapEvent& event);
  absl::Status Apply(const CommEvent& event);
  absl::Status Apply(const ForkEvent& event);
  absl::Status Apply(const ExitEvent& event);
  // Register adds a map named after the symbol unless a kernel map already
  // covers addr (then, like perf, nothing is added). Unregister removes the
  // KSYMBOL map covering addr, never a kernel text or module map.
  absl::Status Apply(const KsymbolEvent& event);

  // The map covering addr in the space `cpumode` names: the kernel space
  // for KERNEL/GUEST_KERNEL, pid's user space for USER/GUEST_USER, nothing
  // for HYPERVISOR/UNKNOWN. In kernel space, an address past the end of the
  // kernel text map that no other map covers is the text map's, as perf
  // extends that map to its last symbol: the map returned then ends before
  // addr. Whether the cpumode's host/guest side matches
  // this machine is the caller's business (see Machines). No fallback to the
  // other space when the cpumode is wrong. Accepts a whole misc word.
  std::optional<Map> FindMap(int32_t pid, uint16_t cpumode, uint64_t addr) const;

  // The user address space of pid, or null if pid is unknown. Hot loops can
  // hold it and call Maps::Find with a MapsCache.
  std::shared_ptr<Maps> FindUserMaps(int32_t pid) const;
  Maps& kernel_maps() { return *kernel_maps_; }
  const Maps& kernel_maps() const { return *kernel_maps_; }
  std::optional<RelocationSymbol> kernel_relocation() const;

  std::optional<Thread> FindThread(int32_t tid) const;
  // The thread, created (with its process) on first sight. A known tid with
  // a different pid is a reused tid: the old thread is dropped first.
  absl::StatusOr<Thread> FindOrAddThread(int32_t pid, int32_t tid);
  size_t thread_count() const;
  size_t process_count() const;

 private:
  struct Process {
    std::shared_ptr<Maps> maps = std::make_shared<Maps>();
    int threads = 0;
  };
  struct ThreadEntry {
    int32_t pid = 0;
    std::string comm;
    std::shared_ptr<Process> process;
    bool exited = false;
  };

  ThreadEntry& FindOrAddThreadLocked(int32_t pid, int32_t tid) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  ThreadEntry& AddThreadLocked(int32_t pid, int32_t tid, std::shared_ptr<Process> process)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void RemoveThreadLocked(int32_t tid) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status ApplyKernelMmap(const MmapEvent& event, uint64_t end)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status ApplyUserMmap(const MmapEvent& event, uint64_t end)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool IsKernelMmapName(absl::string_view filename) const;
  Thread ToThread(int32_t tid, const ThreadEntry& entry) const;

  const int32_t pid_;
  const size_t exited_threads_kept_;
  const std::string kernel_name_;
  const std::shared_ptr<Maps> kernel_maps_ = std::make_shared<Maps>();

  mutable base::SharedMutex mu_;
  DsoTable dsos_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<int32_t, ThreadEntry> threads_ ABSL_GUARDED_BY(mu_);                 // by tid
  absl::flat_hash_map<int32_t, std::shared_ptr<Process>> processes_ ABSL_GUARDED_BY(mu_);  // by pid
  std::optional<RelocationSymbol> kernel_relocation_ ABSL_GUARDED_BY(mu_);
  std::deque<int32_t> exited_ ABSL_GUARDED_BY(mu_);  // tids in EXIT order, oldest first
};

}  // namespace perftk::machine

#endif  // PERFTK_MACHINE_MACHINE_H_
