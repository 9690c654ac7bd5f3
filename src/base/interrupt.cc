#include "base/interrupt.h"

#include <pthread.h>
#include <signal.h>

#include <system_error>
#include <thread>

#include "base/pending_file.h"

namespace perftk::base {
namespace {

sigset_t InterruptSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  return set;
}

[[noreturn]] void CleanUpAndDie(int signal_number) {
  RemoveAllPending(/*forever=*/true);
  struct sigaction action {};
  action.sa_handler = SIG_DFL;
  sigaction(signal_number, &action, nullptr);
  sigset_t only;
  sigemptyset(&only);
  sigaddset(&only, signal_number);
  pthread_sigmask(SIG_UNBLOCK, &only, nullptr);
  raise(signal_number);
  _exit(128 + signal_number);  // not reached: the default action ends the process
}

}  // namespace

void InstallInterruptHandling() {
  signal(SIGPIPE, SIG_IGN);
  sigset_t set = InterruptSignals();
  if (pthread_sigmask(SIG_BLOCK, &set, nullptr) != 0) return;
  try {
    std::thread([set] {
      int signal_number = 0;
      while (sigwait(&set, &signal_number) != 0) {
      }
      CleanUpAndDie(signal_number);
    }).detach();
  } catch (const std::system_error&) {
    // No thread to be had: the signals keep their default action.
    pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
  }
}

}  // namespace perftk::base
