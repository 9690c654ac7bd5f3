#include "cs_etm/opencsd_guard.h"

#include <opencsd/c_api/opencsd_c_api.h>
#include <setjmp.h>
#include <signal.h>

#include <vector>

namespace perftk::cs_etm {
namespace {

thread_local sigjmp_buf* guard_jump = nullptr;
thread_local int callback_depth = 0;  // PerftkCallbackScopes open on this thread
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
  const int signal = sigsetjmp(jump, /*savemask=*/1);
  if (signal != 0) {
    guard_jump = outer;
    callback_depth = outer_depth;
    return signal;
  }
  guard_jump = &jump;
  call();
  guard_jump = outer;
  return 0;
}

void AbandonTree(void* tree) {
  static base::Mutex* const mutex = new base::Mutex;
  static auto* const abandoned = new std::vector<void*>;
  base::MutexLock lock(*mutex);
  abandoned->push_back(tree);
}

}  // namespace perftk::cs_etm
