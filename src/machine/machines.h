// Machines holds the host Machine and the guest Machines, and routes events
// and lookups to the right one by cpumode.
//
// An event or sample whose cpumode is PERF_RECORD_MISC_GUEST_KERNEL or
// PERF_RECORD_MISC_GUEST_USER belongs to the guest keyed by the pid of its VM
// process: `machine_pid` when the file gives one, else the event's own pid
// (perf's rule in machines__find_for_cpumode; KSYMBOL, which has no pid, uses
// machine_pid alone). Every other cpumode belongs to the host. Guests are
// created on first sight; perf instead folds unknown guests into its default
// guest (pid 0) unless --guestmount names them, which a caller can get by
// passing machine_pid 0.
//
// Thread-safe. Machines are never removed, so references stay valid for the
// life of the Machines.
#ifndef PERFTK_MACHINE_MACHINES_H_
#define PERFTK_MACHINE_MACHINES_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <shared_mutex>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "base/shared_mutex.h"
#include "machine/events.h"
#include "machine/machine.h"
#include "machine/map.h"

namespace perftk::machine {

bool IsGuestCpumode(uint16_t cpumode);

class Machines {
 public:
  Machines() = default;
  // Every machine keeps this many exited threads (see Machine).
  explicit Machines(size_t exited_threads_kept)
      : exited_threads_kept_(exited_threads_kept), host_(kHostMachinePid, exited_threads_kept) {}
  Machines(const Machines&) = delete;
  Machines& operator=(const Machines&) = delete;

  Machine& host() { return host_; }
  const Machine& host() const { return host_; }

  // The machine for cpumode (a misc word is fine); a guest is created on
  // first sight.
  Machine& FindOrAdd(uint16_t cpumode, int32_t guest_pid);
  // Lookup only: null for a guest never seen.
  const Machine* Find(uint16_t cpumode, int32_t guest_pid) const;
  size_t guest_count() const;

  absl::Status Apply(const MmapEvent& event);
  absl::Status Apply(const CommEvent& event);
  absl::Status Apply(const ForkEvent& event);
  absl::Status Apply(const ExitEvent& event);
  absl::Status Apply(const KsymbolEvent& event);

  // Machine::FindMap on the machine that cpumode and guest_pid select.
  std::optional<Map> FindMap(int32_t guest_pid, int32_t pid, uint16_t cpumode, uint64_t addr) const;

 private:
  template <typename Event>
  absl::Status ApplyWithPid(const Event& event, int32_t pid);

  size_t exited_threads_kept_ = Machine::kExitedThreadsKept;
  Machine host_{kHostMachinePid, exited_threads_kept_};
  mutable base::SharedMutex mu_;
  absl::flat_hash_map<int32_t, std::unique_ptr<Machine>> guests_ ABSL_GUARDED_BY(mu_);
};

}  // namespace perftk::machine

#endif  // PERFTK_MACHINE_MACHINES_H_
