#include "cs_etm/opencsd_guard.h"

#include <opencsd/c_api/opencsd_c_api.h>
#include <setjmp.h>
#include <signal.h>

#include <algorithm>
#include <cstdlib>
#include <new>
#include <vector>

#include "base/sanitizers.h"

// Whether this build replaces operator delete (see HoldIfGuarded): not
// under a sanitizer, whose runtime defines it (ASan's and TSan's allocators
// hold freed memory back themselves).
#define PERFTK_HOLD_DELETES (!PERFTK_SANITIZED)

namespace perftk::cs_etm {
namespace {

thread_local sigjmp_buf* guard_jump = nullptr;
thread_local int callback_depth = 0;  // PerftkCallbackScopes open on this thread
// Deletes held during this thread's guarded calls: trivially destructible,
// so that a delete at thread or process exit finds it usable.
struct Held {
  void** pointers;
  size_t count;
  size_t capacity;
  int guard_depth;  // guarded calls running on this thread
  int block_depth;  // OpenCsdBlockScopes open on this thread
};
thread_local Held held = {};

// Frees what the guarded calls held once the outermost has returned and no
// block scope is open, each pointer once: OpenCSD also deletes some
// element twice.
void FreeHeld() {
  if (held.guard_depth > 0 || held.block_depth > 0) return;
  void** const end = held.pointers + held.count;
  std::sort(held.pointers, end);
  for (void** p = held.pointers; p != end; ++p) {
    if (p == held.pointers || *p != p[-1]) std::free(*p);
  }
  held.count = 0;
}

#if PERFTK_HOLD_DELETES
// True when `pointer`, deleted by OpenCSD during a guarded call, is held
// until the call returns. A delete by perftk's own callbacks is not; one
// that finds no room (realloc failing) is freed at once.
bool HoldIfGuarded(void* pointer) {
  if (held.guard_depth == 0 || callback_depth != 0) return false;
  if (pointer == nullptr) return true;
  if (held.count == held.capacity) {
    const size_t capacity = held.capacity == 0 ? 1024 : held.capacity * 2;
    void* grown = std::realloc(held.pointers, capacity * sizeof(void*));
    if (grown == nullptr) return false;
    held.pointers = static_cast<void**>(grown);
    held.capacity = capacity;
  }
  held.pointers[held.count++] = pointer;
  return true;
}
#endif

struct sigaction previous_segv;
struct sigaction previous_bus;

void OnFault(int signal, siginfo_t* info, void* context) {
  (void)info;
  (void)context;
  if (guard_jump != nullptr && callback_depth == 0) {
    sigjmp_buf* jump = guard_jump;
    guard_jump = nullptr;
    siglongjmp(*jump, signal);
  }
  // Not OpenCSD's: hand the fault back to whoever had it; returning re-runs
  // the faulting instruction under that handler.
  sigaction(signal, signal == SIGSEGV ? &previous_segv : &previous_bus, nullptr);
}

void InstallFaultHandlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction action = {};
    action.sa_sigaction = &OnFault;
    action.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&action.sa_mask);
    sigaction(SIGSEGV, &action, &previous_segv);
    sigaction(SIGBUS, &action, &previous_bus);
  });
}

}  // namespace

base::Mutex& OpenCsdSetupMutex() {
  static base::Mutex* const mutex = new base::Mutex;
  return *mutex;
}

void QuietOpenCsdErrorLog() {
  static std::once_flag once;
  std::call_once(once, [] {
    base::MutexLock lock(OpenCsdSetupMutex());
    ocsd_def_errlog_init(OCSD_ERR_SEV_NONE, 0);
  });
}

PerftkCallbackScope::PerftkCallbackScope() { ++callback_depth; }
PerftkCallbackScope::~PerftkCallbackScope() { --callback_depth; }

int RunGuarded(absl::FunctionRef<void()> call) {
  InstallFaultHandlers();
  sigjmp_buf jump;
  sigjmp_buf* const outer = guard_jump;
  const int outer_depth = callback_depth;
  ++held.guard_depth;
  const int signal = sigsetjmp(jump, /*savemask=*/1);
  if (signal != 0) {
    guard_jump = outer;
    callback_depth = outer_depth;
    --held.guard_depth;
    FreeHeld();
    return signal;
  }
  guard_jump = &jump;
  call();
  guard_jump = outer;
  --held.guard_depth;
  FreeHeld();
  return 0;
}

OpenCsdBlockScope::OpenCsdBlockScope() { ++held.block_depth; }
OpenCsdBlockScope::~OpenCsdBlockScope() {
  --held.block_depth;
  FreeHeld();
}

size_t HeldByGuard() { return held.count; }

bool GuardHoldsDeletes() { return PERFTK_HOLD_DELETES != 0; }

void AbandonTree(void* tree) {
  static base::Mutex* const mutex = new base::Mutex;
  static auto* const abandoned = new std::vector<void*>;
  base::MutexLock lock(*mutex);
  abandoned->push_back(tree);
}

}  // namespace perftk::cs_etm

#if PERFTK_HOLD_DELETES
// The replaceable global deallocation functions ([new.delete]); the
// allocation functions stay libstdc++'s, which take memory from malloc.
void operator delete(void* pointer) noexcept {
  if (!perftk::cs_etm::HoldIfGuarded(pointer)) std::free(pointer);
}
void operator delete(void* pointer, std::size_t) noexcept {
  if (!perftk::cs_etm::HoldIfGuarded(pointer)) std::free(pointer);
}
void operator delete[](void* pointer) noexcept {
  if (!perftk::cs_etm::HoldIfGuarded(pointer)) std::free(pointer);
}
void operator delete[](void* pointer, std::size_t) noexcept {
  if (!perftk::cs_etm::HoldIfGuarded(pointer)) std::free(pointer);
}
#endif
