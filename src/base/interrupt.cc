#include "base/interrupt.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <new>
#include <system_error>
#include <thread>

#include "base/pending_file.h"
#include "base/status_prefix.h"

namespace perftk::base {
namespace {

// The signals whose default action ends the process and that arrive from
// outside (kill, the terminal, alarm, a process-wide SIGXFSZ): the waiting
// thread takes them. A SIGXFSZ the kernel sends for a write past `ulimit -f`
// goes to the writing thread, where it stays blocked: the write fails with
// EFBIG and the run ends as any failed write does.
constexpr std::array kWaitedSignals = {SIGINT,  SIGTERM, SIGHUP,  SIGQUIT,
                                       SIGUSR1, SIGUSR2, SIGALRM, SIGXFSZ};

// A mapped input, as the SIGBUS handler reads it (no lock there).
struct MappedSlot {
  std::atomic<uintptr_t> begin{0};  // 0: free
  std::atomic<size_t> length{0};
  char name[256] = {};
};
constexpr size_t kMappedSlots = 1024;  // recordings, binaries: a lane maps many
std::array<MappedSlot, kMappedSlots> mapped_inputs;
std::mutex mapped_mu;  // taken by Add/Remove only, never by the handler

bool sigpipe_ignored_at_start = false;
constexpr char kClosedPipeMark[] = "perftk/closed-pipe";

std::atomic<int> fault_signal{0};  // SIGBUS once the handler has seen one
std::atomic<bool> waiter_running{false};
int wake_signal = 0;  // a real-time signal the handler wakes the waiter with

// Ends the process by `signal_number`'s default action, as if it had
// arrived unhandled: the shell sees status 128 + signal.
[[noreturn]] void DieBy(int signal_number) {
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

[[noreturn]] void CleanUpAndDie(int signal_number) {
  RemoveAllPending(/*forever=*/true);
  DieBy(signal_number);
}

// Async-signal-safe output: text and hex numbers with write(2).
void Say(const char* text) {
  ssize_t ignored = write(STDERR_FILENO, text, strlen(text));
  (void)ignored;
}
void SayHex(uint64_t value) {
  char digits[19] = "0x";
  int n = 0;
  char reversed[16];
  do {
    reversed[n++] = "0123456789abcdef"[value & 15];
    value >>= 4;
  } while (value != 0);
  for (int i = 0; i < n; ++i) digits[2 + i] = reversed[n - 1 - i];
  digits[2 + n] = '\0';
  Say(digits);
}

// A read of a mapped file past its end: the file shrank during the run.
// Names it, then has the waiting thread remove the pending files and end
// the process by SIGBUS; this thread waits for that (it cannot go on).
void OnBusError(int signal_number, siginfo_t* info, void*) {
  const auto address = reinterpret_cast<uintptr_t>(info->si_addr);
  Say("perftk: ");
  bool named = false;
  for (const MappedSlot& slot : mapped_inputs) {
    const uintptr_t begin = slot.begin.load(std::memory_order_acquire);
    if (begin == 0 || address < begin || address - begin >= slot.length.load()) continue;
    Say(slot.name);
    Say(": the input shrank while it was read (no data at offset ");
    SayHex(address - begin);
    Say("); it must not change during a run\n");
    named = true;
    break;
  }
  if (!named) Say("an input file shrank while it was read (bus error); it must not change\n");
  fault_signal.store(signal_number);
  if (waiter_running.load()) {
    kill(getpid(), wake_signal);
    while (true) pause();
  }
  RemoveAllPending(/*forever=*/false);
  signal(signal_number, SIG_DFL);
  raise(signal_number);
  _exit(128 + signal_number);
}

// Memory set aside at start and given back when an allocation fails, so
// that the clean-up below can still allocate what it needs.
constexpr size_t kMemoryReserve = size_t{4} << 20;
char* memory_reserve = nullptr;

// operator new found no memory, on any thread: the run cannot go on. Its
// pending files are removed (unless another thread holds their list for
// long) and it exits 1 with a message; no exception unwinds anything.
void OnOutOfMemory() {
  delete[] memory_reserve;
  memory_reserve = nullptr;
  std::set_new_handler(nullptr);
  Say("perftk: out of memory: the run needs more than this process may have (see `ulimit -v` "
      "and the machine's free memory); stopped\n");
  if (!RemoveAllPendingAndHold(std::chrono::seconds(2))) {
    Say("perftk: could not remove the run's temporary files (*.tmp.<pid>)\n");
  }
  _exit(1);
}

bool IgnoredAtStart(int signal_number) {
  struct sigaction current {};
  return sigaction(signal_number, nullptr, &current) == 0 && current.sa_handler == SIG_IGN;
}

}  // namespace

absl::Status ClosedPipeError(absl::string_view message) {
  return Marked(absl::UnavailableError(message), kClosedPipeMark);
}

bool IsClosedPipe(const absl::Status& status) { return HasMark(status, kClosedPipeMark); }

void EndByClosedPipe() {
  if (sigpipe_ignored_at_start) return;
  std::fflush(stderr);
  DieBy(SIGPIPE);
}

void InstallInterruptHandling() {
  sigpipe_ignored_at_start = IgnoredAtStart(SIGPIPE);
  signal(SIGPIPE, SIG_IGN);
  memory_reserve = new char[kMemoryReserve];
  std::set_new_handler(OnOutOfMemory);
  wake_signal = SIGRTMIN;
  sigset_t set;
  sigemptyset(&set);
  // A signal ignored at start (nohup's SIGHUP, a background job's SIGINT
  // and SIGQUIT) stays ignored: blocked, it would still be waited for.
  for (int signal_number : kWaitedSignals) {
    if (!IgnoredAtStart(signal_number)) sigaddset(&set, signal_number);
  }
  sigaddset(&set, wake_signal);
  if (pthread_sigmask(SIG_BLOCK, &set, nullptr) != 0) return;
  try {
    std::thread([set] {
      while (true) {
        int signal_number = 0;
        if (sigwait(&set, &signal_number) != 0) continue;
        if (signal_number == wake_signal) {
          if (fault_signal.load() == 0) continue;  // not from our handler
          signal_number = fault_signal.load();
        }
        CleanUpAndDie(signal_number);
      }
    }).detach();
    waiter_running.store(true);
  } catch (const std::system_error&) {
    // No thread to be had: the signals keep their default action.
    pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
  }
  struct sigaction bus {};
  bus.sa_sigaction = OnBusError;
  bus.sa_flags = SA_SIGINFO;
  sigemptyset(&bus.sa_mask);
  sigaction(SIGBUS, &bus, nullptr);
}

size_t NoteMappedInput(const void* begin, size_t length, const std::string& name) {
  std::lock_guard<std::mutex> lock(mapped_mu);
  for (size_t i = 0; i < kMappedSlots; ++i) {
    MappedSlot& slot = mapped_inputs[i];
    if (slot.begin.load() != 0) continue;
    const size_t n = std::min(name.size(), sizeof(slot.name) - 1);
    std::memcpy(slot.name, name.data(), n);
    slot.name[n] = '\0';
    slot.length.store(length);
    slot.begin.store(reinterpret_cast<uintptr_t>(begin), std::memory_order_release);
    return i + 1;
  }
  return 0;  // all taken: a fault there is reported without a name
}

void ForgetMappedInput(size_t token) {
  if (token == 0 || token > kMappedSlots) return;
  std::lock_guard<std::mutex> lock(mapped_mu);
  mapped_inputs[token - 1].begin.store(0, std::memory_order_release);
}

}  // namespace perftk::base
