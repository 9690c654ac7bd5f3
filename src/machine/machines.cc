#include "machine/machines.h"

#include <mutex>

namespace perftk::machine {

bool IsGuestCpumode(uint16_t cpumode) {
  cpumode = CpumodeOf(cpumode);
  return cpumode == PERF_RECORD_MISC_GUEST_KERNEL || cpumode == PERF_RECORD_MISC_GUEST_USER;
}

Machine& Machines::FindOrAdd(uint16_t cpumode, int32_t guest_pid) {
  if (!IsGuestCpumode(cpumode)) return host_;
  base::WriterMutexLock lock(mu_);
  std::unique_ptr<Machine>& guest = guests_[guest_pid];
  if (guest == nullptr) guest = std::make_unique<Machine>(guest_pid, exited_threads_kept_);
  return *guest;
}

const Machine* Machines::Find(uint16_t cpumode, int32_t guest_pid) const {
  if (!IsGuestCpumode(cpumode)) return &host_;
  base::ReaderMutexLock lock(mu_);
  auto it = guests_.find(guest_pid);
  return it == guests_.end() ? nullptr : it->second.get();
}

size_t Machines::guest_count() const {
  base::ReaderMutexLock lock(mu_);
  return guests_.size();
}

template <typename Event>
absl::Status Machines::ApplyWithPid(const Event& event, int32_t pid) {
  const int32_t guest_pid = event.machine_pid != 0 ? event.machine_pid : pid;
  return FindOrAdd(event.misc, guest_pid).Apply(event);
}

absl::Status Machines::Apply(const MmapEvent& event) { return ApplyWithPid(event, event.pid); }
absl::Status Machines::Apply(const CommEvent& event) { return ApplyWithPid(event, event.pid); }
absl::Status Machines::Apply(const ForkEvent& event) { return ApplyWithPid(event, event.pid); }
absl::Status Machines::Apply(const ExitEvent& event) { return ApplyWithPid(event, event.pid); }
absl::Status Machines::Apply(const KsymbolEvent& event) {
  return ApplyWithPid(event, event.machine_pid);
}

std::optional<Map> Machines::FindMap(int32_t guest_pid, int32_t pid, uint16_t cpumode,
                                     uint64_t addr) const {
  const Machine* machine = Find(cpumode, guest_pid);
  if (machine == nullptr) return std::nullopt;
  return machine->FindMap(pid, cpumode, addr);
}

}  // namespace perftk::machine
