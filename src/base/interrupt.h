// What happens when a run is interrupted, killed, or its reader goes away.
//
// InstallInterruptHandling (call once, first thing in main, before any
// thread starts) blocks, in every thread, the signals that end a process
// from outside — SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2,
// SIGALRM, SIGXFSZ — except those ignored at start (nohup, a background
// job), which stay ignored, and starts one thread that waits for them. When
// one arrives, that thread removes every file the run has pending
// (pending_file.h), with the list's lock held for good so that nothing new
// is created, and then ends the process by the same signal: the shell sees
// status 128 + signal, and no temporary or half-written file is left.
//
// SIGBUS, a read of a mapped input past its end because the file shrank
// during the run, is handled on the faulting thread: it names the file (one
// noted by NoteMappedInput) and the offset, and the waiting thread cleans
// up and ends the process by SIGBUS as above.
//
// Out of memory (operator new fails, on any thread): the pending files are
// removed and the run exits 1 with a message.
//
// SIGPIPE is ignored during the run: a write to a closed pipe fails with
// EPIPE, the writer returns ClosedPipeError, and the run cleans up as a
// failed run does. Then EndByClosedPipe ends it as a closed pipe ends
// coreutils: by SIGPIPE, with nothing said (`set -o pipefail` sees status
// 141). Where SIGPIPE was ignored at start, the parent asked for EPIPE
// instead: the error is reported and the status is 1. A write past
// `ulimit -f` likewise fails with EFBIG.
#ifndef PERFTK_BASE_INTERRUPT_H_
#define PERFTK_BASE_INTERRUPT_H_

#include <cstddef>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace perftk::base {

void InstallInterruptHandling();

// An error for a write whose reader closed its end of the pipe, and the
// test for one.
absl::Status ClosedPipeError(absl::string_view message);
bool IsClosedPipe(const absl::Status& status);

// Ends the process by SIGPIPE, unless SIGPIPE was ignored when
// InstallInterruptHandling ran: then it returns.
void EndByClosedPipe();

// Names the input mapped at [begin, begin + length) for a SIGBUS message;
// returns a token for ForgetMappedInput (0 when every slot is taken).
size_t NoteMappedInput(const void* begin, size_t length, const std::string& name);
void ForgetMappedInput(size_t token);

// NoteMappedInput for as long as it lives: for mappings made elsewhere
// (libelf's and libdw's of a binary), named while they are in use.
class MappedInputName {
 public:
  MappedInputName() = default;
  MappedInputName(const void* begin, size_t length, const std::string& name)
      : token_(NoteMappedInput(begin, length, name)) {}
  ~MappedInputName() { ForgetMappedInput(token_); }
  MappedInputName(MappedInputName&& other) noexcept : token_(other.token_) { other.token_ = 0; }
  MappedInputName& operator=(MappedInputName&& other) noexcept {
    if (this != &other) {
      ForgetMappedInput(token_);
      token_ = other.token_;
      other.token_ = 0;
    }
    return *this;
  }
  MappedInputName(const MappedInputName&) = delete;
  MappedInputName& operator=(const MappedInputName&) = delete;

 private:
  size_t token_ = 0;
};

}  // namespace perftk::base

#endif  // PERFTK_BASE_INTERRUPT_H_
