// The events the machine model consumes: plain values that an adapter fills
// from perf.data records (or a test fills by hand). Field names follow the
// kernel's record layouts in linux/perf_event.h; `misc` is the record
// header's misc word (cpumode in bits 0-2, plus per-record flags).
//
// machine_pid: the pid of the VM process a guest event belongs to, when the
// file says so (perf inject --guest-data); 0 if unknown. See Machines.
#ifndef PERFTK_MACHINE_EVENTS_H_
#define PERFTK_MACHINE_EVENTS_H_

#include <cstdint>
#include <string>

#include "base/build_id.h"
#include "perftk/perf_abi.h"

namespace perftk::machine {

inline uint16_t CpumodeOf(uint16_t misc) { return misc & PERF_RECORD_MISC_CPUMODE_MASK; }

// PERF_RECORD_MMAP and PERF_RECORD_MMAP2. For MMAP, which has no prot field,
// set prot to PROT_EXEC unless misc has PERF_RECORD_MISC_MMAP_DATA (perf's
// rule). build_id holds the id when misc has PERF_RECORD_MISC_MMAP_BUILD_ID,
// and is empty otherwise.
struct MmapEvent {
  uint16_t misc = 0;
  int32_t pid = 0;
  int32_t tid = 0;
  uint64_t start = 0;
  uint64_t len = 0;
  uint64_t pgoff = 0;
  uint32_t maj = 0;
  uint32_t min = 0;
  uint64_t ino = 0;
  uint64_t ino_generation = 0;
  base::BuildId build_id;
  uint32_t prot = 0;
  uint32_t flags = 0;
  std::string filename;
  int32_t machine_pid = 0;
};

// PERF_RECORD_COMM; misc & PERF_RECORD_MISC_COMM_EXEC marks an exec.
struct CommEvent {
  uint16_t misc = 0;
  int32_t pid = 0;
  int32_t tid = 0;
  std::string comm;
  int32_t machine_pid = 0;

  bool exec() const { return (misc & PERF_RECORD_MISC_COMM_EXEC) != 0; }
};

// PERF_RECORD_FORK and PERF_RECORD_EXIT share one layout.
struct TaskEvent {
  uint16_t misc = 0;
  int32_t pid = 0;
  int32_t ppid = 0;
  int32_t tid = 0;
  int32_t ptid = 0;
  int32_t machine_pid = 0;
};
struct ForkEvent : TaskEvent {};
struct ExitEvent : TaskEvent {};

// PERF_RECORD_KSYMBOL.
struct KsymbolEvent {
  uint16_t misc = 0;
  uint64_t addr = 0;
  uint32_t len = 0;
  uint16_t ksym_type = PERF_RECORD_KSYMBOL_TYPE_UNKNOWN;
  uint16_t flags = 0;
  std::string name;
  int32_t machine_pid = 0;

  bool unregister() const { return (flags & PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER) != 0; }
};

}  // namespace perftk::machine

#endif  // PERFTK_MACHINE_EVENTS_H_
