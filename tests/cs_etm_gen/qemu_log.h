// The lines of a qemu-user log that tell what an aarch64 guest executed
// and where its code was mapped, as
//   qemu-aarch64 -singlestep -d exec,nochain -strace -D /dev/stderr PROG
// writes them (qemu 7.2):
//   "Trace 0: 0x7fb04b400100 [0000000001009331/000000550081bc40/...] ..."
//       one translation block run; with -singlestep one instruction, whose
//       guest pc is the second field in the brackets;
//   "Stopped execution of TB chain before 0x7fd6444aa4c0 [0000005500947e78] run"
//       the block of the last Trace line with that host address did not
//       run after all (another thread asked the vCPU to stop: kStopped);
//   "5158 openat(AT_FDCWD,"/lib/libc.so.6",O_RDONLY|O_CLOEXEC) = 4"
//   "5158 mmap(0x0000005500860000,1761424,PROT_EXEC|PROT_READ,...,4,0) = 0x..."
//   "5158 close(4) = 0"
//       -strace lines of the syscalls that map code (one line per syscall:
//       the guest runs nothing between a syscall's call and its result).
// Without -singlestep, one Trace line is a whole translation block; with
// -d in_asm qemu lists each block's instructions when it translates it:
//   "IN: main"                       (kBlockStart)
//   "0x4005d0:  a9bf7bfd  stp ..."   (kBlockInstruction: pc and word)
//   ""                               (the end of the list)
// Every other line is kOther.
#ifndef PERFTK_TESTS_CS_ETM_GEN_QEMU_LOG_H_
#define PERFTK_TESTS_CS_ETM_GEN_QEMU_LOG_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace perftk::etm_gen {

struct QemuLine {
  enum class Kind { kOther, kPc, kStopped, kOpen, kClose, kMmap, kBlockStart, kBlockInstruction };
  Kind kind = Kind::kOther;
  int32_t pid = 0;       // strace lines: the guest's pid
  uint32_t cpu = 0;      // kPc: qemu's vCPU index ("Trace N:"), one per guest thread
  uint64_t pc = 0;       // kPc, kStopped, kBlockInstruction
  uint64_t host = 0;     // kPc, kStopped: the host address of the block's code
  uint32_t word = 0;     // kBlockInstruction
  std::string path;      // kOpen: the guest path opened
  int64_t fd = -1;       // kOpen: the result (negative: failed); kClose, kMmap: the fd
  uint64_t address = 0;  // kMmap: where it was mapped (the result)
  uint64_t length = 0;   // kMmap
  uint64_t offset = 0;   // kMmap: file offset
  bool exec = false;     // kMmap: PROT_EXEC
  bool failed = false;   // kMmap: the call failed
};

// Classifies one line (without its newline). Lines that look like one of
// the kinds but do not parse are kOther.
QemuLine ParseQemuLine(std::string_view line);

}  // namespace perftk::etm_gen

#endif  // PERFTK_TESTS_CS_ETM_GEN_QEMU_LOG_H_
