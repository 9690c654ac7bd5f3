// Records a real aarch64 program as `perf record -e cs_etm//u` would, from
// the exact sequence of instructions qemu-user executed (qemu_log.h), and
// keeps the ground truth of that execution.
//
// The program must be a non-PIE ELF (ET_EXEC), static or run by its
// interpreter (PT_INTERP): qemu loads the program at its link addresses and
// the interpreter where its entry is the first pc executed (a static
// program is entered at its own entry); further code (libc, ...) is what the
// guest mmaps with PROT_EXEC from a file it opened (-strace). Guest paths
// are looked up under `prefix` first, as qemu's -L does. Each mapping is an
// MMAP2 record with the file's canonical path, page offset and build id,
// written when the code is mapped. Code in no file (qemu 7.2 gives aarch64
// guests no vDSO; its signal trampoline is an anonymous page) is left
// untraced, as an address-range filter would leave it and as perf, which
// has no image of it, could not decode it: the waypoint that enters it is
// traced (an indirect branch without its target address), and trace
// resumes with Trace On and an Address with Context where control comes
// back to a file. A signal is modelled when delivered on a syscall's
// return (the SVC's Exception packet, then trace at the handler);
// asynchronous delivery at any other instruction is refused (but after an
// indirect branch, whose target nothing checks, the handler would pass for
// the branch's target: programs with asynchronous signals are not for
// this recorder). So is any
// step the instruction words do not allow (a fall-through that skips, a
// branch to another target than its own), and a pc in no file in a log
// without -strace lines: the log is then not one thread's exact
// execution, and no truth is claimed for it.
//
// Threads: each of qemu's vCPUs (one per guest thread, "Trace N:") is a
// thread pid + N on CPU N of the recording, with a trace stream of its own
// from its first instruction (the return of the clone that made it). The
// thread names are the recording's, not the kernel's tids; a vCPU index
// qemu gives again after its thread exited continues that thread's stream
// (the flow itself stays exact). Syscall lines that other threads' lines
// cut are joined again; an executable mmap among interleaved syscalls is
// refused. A Trace line that qemu's "Stopped execution of TB chain
// before" line takes back (the vCPU was asked to stop before the block
// ran) is no execution.
//
// The trace (per CPU: EL0, no timestamps) is ETMv4 packed in
// CoreSight frames, cut into AUX buffers of at most about `buffer_bytes`,
// each cut after a waypoint and each starting with A-sync, Trace Info and
// an Address with Context: every direct branch is an E or N atom (B and BL
// always E; a conditional branch to the next instruction, which the log
// cannot tell apart, N), every indirect branch (BR, BLR, RET and their
// pointer-authenticated forms) an E atom and a Long Address, every SVC an
// Exception packet, Trace On and an Address with Context where the kernel
// returns (the kernel is not traced: cs_etm//u).
//
// The truth, per file: every executed range (from a range's first
// instruction to the waypoint ending it, as the trace delimits ranges,
// taken or not) with its count, and every taken branch (from, to) with its
// count, as file offsets; Truth() gives them in the shape cs-etm-decode's
// --format=autofdo writes: AutoFDO addresses, indirect targets and targets
// in another file as 0.
#ifndef PERFTK_TESTS_CS_ETM_GEN_QEMU_RECORDER_H_
#define PERFTK_TESTS_CS_ETM_GEN_QEMU_RECORDER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "profile/profile.h"
#include "truth.h"

namespace perftk::etm_gen {

struct QemuRecorderOptions {
  std::string program;  // host path of the traced ELF
  std::string prefix;   // qemu's -L
  std::string output;   // the perf.data to write
  size_t buffer_bytes = 64 * 1024;
  int32_t pid = 1000;  // the pid the recording names; thread N is pid + N
  // The log is of translation blocks (qemu without -singlestep, with
  // -d in_asm): each Trace line runs every instruction of the block its
  // in_asm listing gave for that pc. A pc translated twice into blocks of
  // different lengths is refused (which one ran would be a guess). A block
  // is taken to run whole: a program that faults inside one (a SIGSEGV
  // handler), or a threaded one whose atomics qemu re-runs alone, wants
  // -singlestep, whose log shows every instruction (the step checks catch
  // most such logs, but not a fault just before an indirect branch).
  bool blocks = false;
  // Threads: qemu's vCPU N ("Trace N:") is thread pid + N, traced on CPU
  // N; vCPUs 0 .. cpus - 1 are allowed (the AUXTRACE_INFO names that many).
  uint32_t cpus = 1;
  // Called with each AUX buffer's CPU and truth events (truth.h), in trace
  // order, as the buffer is written: its ranges (taken: left by a taken
  // branch or an SVC), kTraceOn where trace resumes after the kernel or code
  // in no file, kBlockStart and kBlockEnd.
  std::function<void(uint32_t cpu, const std::vector<TruthEvent>&)> on_buffer;
};

struct QemuRecorderStats {
  uint64_t lines = 0;
  uint64_t instructions = 0;
  uint64_t waypoints = 0;
  uint64_t taken = 0;
  uint64_t indirect = 0;
  uint64_t syscalls = 0;
  uint64_t buffers = 0;
  uint64_t trace_bytes = 0;
  uint64_t mappings = 0;
  uint64_t untraced = 0;  // instructions in code without a file
  uint64_t threads = 0;
  uint64_t taken_back = 0;  // Trace lines a "Stopped execution" line undid
};

class QemuRecorder {
 public:
  static absl::StatusOr<std::unique_ptr<QemuRecorder>> Create(const QemuRecorderOptions& options);
  ~QemuRecorder();

  // One line of the log, without its newline.
  absl::Status Line(std::string_view line);
  // Ends the trace (the last instruction, when an SVC, is its last range)
  // and the file.
  absl::Status Finish();

  // The ground truth in the shape --format=autofdo or bolt gives it (after
  // Finish): AutoFDO addresses and indirect targets as 0, or BOLT's virtual
  // addresses and indirect targets, 0 where the trace names none in the
  // branch's block (the branch ends a buffer, or enters untraced code).
  profile::Profile Truth(profile::Format format = profile::Format::kAutoFdo) const;
  const QemuRecorderStats& stats() const;

 private:
  class Impl;
  explicit QemuRecorder(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace perftk::etm_gen

#endif  // PERFTK_TESTS_CS_ETM_GEN_QEMU_RECORDER_H_
