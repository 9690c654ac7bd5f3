// What it takes to run several OpenCSD decode trees on several threads.
//
// OpenCSD 1.3.3 keeps process-wide state: the list of decode trees, the C
// API's table of callbacks per tree, the lazily made decoder registry, and
// one default error logger that every tree reports to (its "last error" is
// a heap object every logged error overwrites, without a lock). Decoding
// with one tree per thread is safe once
//   - trees are created and destroyed only with OpenCsdSetupMutex() held, and
//   - the default error logger logs nothing (QuietOpenCsdErrorLog()), so
//     decoding never writes to it. Decode errors are then known only by the
//     responses of the datapath calls, which the decoder counts and words.
//
// OpenCSD 1.3.3's ETMv4/ETE decoders also crash on some corrupt trace
// (wild reads in TrcPktDecodeEtmV4I::mispredictAtom and processException,
// found by tests/fuzz/cs_etm_decoder_fuzzer.cc). RunGuarded runs datapath
// calls so that a SIGSEGV or SIGBUS in OpenCSD's work returns to the caller
// as a failure instead of killing the process; the tree it happened in is
// in an unknown state and must never be used or destroyed again
// (AbandonTree). Only OpenCSD's faults are caught: perftk's callbacks that
// OpenCSD calls (code reads, element output) run inside a
// PerftkCallbackScope, and a fault there, like a fault outside a guarded
// call, goes to the handler that was there before (a perftk bug is a crash,
// never a decode error, and no lock a callback holds is jumped over).
//
// They also write to memory they have just freed: a return stack underflow
// met inside commitElements or mispredictAtom resets the decoder, which
// deletes the P0 stack's elements, and the loop goes on writing to the one
// it holds (seen with valgrind on the differential test's random trace; in
// a release build glibc then aborts, "malloc(): unaligned tcache chunk").
// And they delete some element twice (a release build aborted, "double
// free or corruption"). So what OpenCSD deletes during a guarded call is
// held, not freed, until the outermost guarded call returns, or until the
// block's OpenCsdBlockScope ends (its stale pointers also outlive a call),
// then freed once: its late writes land in memory that is still its own.
// perftk replaces the global operator delete for this; not in sanitizer
// builds, whose runtimes define it and whose allocators hold freed memory
// back anyway.
#ifndef PERFTK_CS_ETM_OPENCSD_GUARD_H_
#define PERFTK_CS_ETM_OPENCSD_GUARD_H_

#include <cstddef>

#include "absl/functional/function_ref.h"
#include "base/mutex.h"

namespace perftk::cs_etm {

base::Mutex& OpenCsdSetupMutex();

// Sets the default error logger to log nothing. Idempotent, thread-safe.
void QuietOpenCsdErrorLog();

// Runs `call` (which must own no object with a destructor: a fault skips
// them); returns the signal number if it faulted, else 0. Thread-safe; the
// signal handlers are installed on first use.
int RunGuarded(absl::FunctionRef<void()> call);

// How many deletes this thread's guarded calls hold now (0 outside them;
// always 0 when !GuardHoldsDeletes()).
size_t HeldByGuard();
// Whether this build holds them (not in sanitizer builds).
bool GuardHoldsDeletes();

// While one lives on this thread, what the guarded calls hold waits until
// it ends: the scope of one block's decode.
class OpenCsdBlockScope {
 public:
  OpenCsdBlockScope();
  ~OpenCsdBlockScope();
  OpenCsdBlockScope(const OpenCsdBlockScope&) = delete;
  OpenCsdBlockScope& operator=(const OpenCsdBlockScope&) = delete;
};

// Marks perftk code that OpenCSD calls back during a guarded call.
class PerftkCallbackScope {
 public:
  PerftkCallbackScope();
  ~PerftkCallbackScope();
  PerftkCallbackScope(const PerftkCallbackScope&) = delete;
  PerftkCallbackScope& operator=(const PerftkCallbackScope&) = delete;
};

// Keeps a tree that faulted, neither used nor destroyed, for the life of the
// process (reachable, so leak checkers stay quiet).
void AbandonTree(void* tree);

}  // namespace perftk::cs_etm

#endif  // PERFTK_CS_ETM_OPENCSD_GUARD_H_
