// Writes a CoreSight perf.data as `perf record -e cs_etm//` would in
// CPU-wide mode, with perftk's own writer (streaming, so large recordings
// never sit in memory): one cs_etm event with sample_id_all (IP, TID, TIME, CPU,
// IDENTIFIER), COMM and MMAP2 of every process, MMAP2 of a kernel image,
// AUXTRACE_INFO with ETMv4 metadata per CPU (header version 1, TRCCONFIGR
// with the context id bit so the trace names threads), ITRACE_START,
// SWITCH_CPU_WIDE, and per buffer an AUX record and an AUXTRACE record with
// the trace.
#ifndef PERFTK_TESTS_CS_ETM_GEN_RECORDING_WRITER_H_
#define PERFTK_TESTS_CS_ETM_GEN_RECORDING_WRITER_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "perf/header.h"
#include "perf/writer.h"

namespace perftk::etm_gen {

inline constexpr uint32_t kCsEtmPmuType = 9;

struct ProcessMapping {
  int32_t pid = 0;
  std::vector<int32_t> tids;  // the first is the main thread (tid == pid)
  std::string comm;
  uint64_t base = 0;  // where the user binary's file offset 0 is mapped
};

// A file's code mapped into a process (an MMAP2 record): `length` bytes
// at `address` from file offset `pgoff`, with the file's build id.
struct FileMapping {
  uint64_t address = 0;
  uint64_t length = 0;
  uint64_t pgoff = 0;
  std::string path;
  std::string build_id;  // raw bytes; empty: none in the record
};

struct RecordingLayout {
  uint32_t nr_cpus = 1;
  bool timestamps = false;  // sets the TS bit in the event config and TRCCONFIGR
  // ETE 1.0 trace units (their registers, the ETE metadata) instead of
  // ETMv4.2: the packets written are the same, what they mean differs only
  // at an ERET (ETE makes an exception return of its E atom).
  bool ete = false;
  std::string user_binary;  // absolute path, mapped by every process ("" = none)
  uint64_t user_size = 0;
  std::string kernel_image;  // absolute path, mapped as kernel code ("" = none)
  uint64_t kernel_base = 0;
  uint64_t kernel_size = 0;
  // perf's own kernel map instead: "[kernel.kallsyms]_text" at kernel_base,
  // pgoff the runtime address of _text (kernel_image then empty).
  std::string kernel_mmap_name;
  uint64_t kernel_pgoff = 0;
  std::string kernel_build_id;  // raw bytes, in that MMAP2 when not empty
  // Kernel modules, mapped at their base (pgoff 0) as perf and simpleperf
  // map them, each MMAP2 carrying the module's build id (zero-padded to 20
  // bytes, as the BUILD_ID feature stores short ids).
  struct Module {
    std::string path;
    uint64_t base = 0;
    uint64_t size = 0;
    std::string build_id;  // raw bytes
  };
  std::vector<Module> modules;
  std::vector<ProcessMapping> processes;
};

// The AUXTRACE_INFO private words for `nr_cpus` ETMv4 (or ETE) trace units.
std::vector<uint64_t> CsEtmInfoWords(uint32_t nr_cpus, bool timestamps, bool ete = false);

class RecordingWriter {
 public:
  static absl::StatusOr<std::unique_ptr<RecordingWriter>> Create(const std::string& path,
                                                                 const RecordingLayout& layout);

  // ITRACE_START on `cpu` for the thread that runs there first.
  absl::Status StartCpu(uint32_t cpu, int32_t pid, int32_t tid, uint64_t time);
  // An MMAP2 record of `pid`'s mapping, as perf writes one when the
  // process maps code while it is recorded.
  absl::Status AddMapping(int32_t pid, int32_t tid, const FileMapping& mapping, uint64_t time);
  // PERF_RECORD_SWITCH_CPU_WIDE: `pid`/`tid` is switched in on `cpu`
  // (`prev_pid`/`prev_tid` out).
  absl::Status SwitchIn(uint32_t cpu, int32_t pid, int32_t tid, int32_t prev_pid, int32_t prev_tid,
                        uint64_t time);
  // One buffer of trace written by `cpu`'s sink (AUX + AUXTRACE).
  absl::Status AddBuffer(uint32_t cpu, uint64_t time, const std::vector<uint8_t>& trace, bool raw);
  absl::Status Finish();

  uint64_t trace_bytes() const { return trace_bytes_; }

 private:
  RecordingWriter(RecordingLayout layout) : layout_(std::move(layout)) {}
  absl::Status WriteHeaderRecords();
  absl::Status Write(uint32_t type, uint16_t misc, std::vector<std::byte> body, uint32_t cpu,
                     int32_t pid, int32_t tid, uint64_t time, bool sample_id = true,
                     const std::vector<uint8_t>* payload = nullptr);

  RecordingLayout layout_;
  perf::Header header_;
  std::unique_ptr<perf::PerfDataWriter> writer_;
  std::map<uint32_t, uint64_t> aux_offset_;  // per cpu
  uint64_t trace_bytes_ = 0;
};

}  // namespace perftk::etm_gen

#endif  // PERFTK_TESTS_CS_ETM_GEN_RECORDING_WRITER_H_
