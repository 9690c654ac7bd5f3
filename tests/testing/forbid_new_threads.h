// ForbidNewThreads(): makes thread creation fail in the calling process, to
// test code that must work on when no thread can be started.
//
// It limits the address space (RLIMIT_AS) to what is mapped now plus a
// little, so no new thread's stack (8 MB) can be mapped; the limit stays
// for the life of the process, so call it only in a death test's child.
// Returns whether starting a thread now fails; false under sanitizers,
// whose shadow memory cannot live with such a limit (kCanForbidThreads).
#ifndef PERFTK_TESTS_TESTING_FORBID_NEW_THREADS_H_
#define PERFTK_TESTS_TESTING_FORBID_NEW_THREADS_H_

#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <system_error>
#include <thread>

#include "base/sanitizers.h"

namespace perftk::testing {

inline constexpr bool kCanForbidThreads = !PERFTK_SANITIZED;

inline bool ForbidNewThreads() {
  if (!kCanForbidThreads) return false;
  unsigned long pages = 0;
  FILE* statm = std::fopen("/proc/self/statm", "r");
  if (statm == nullptr) return false;
  const bool read = std::fscanf(statm, "%lu", &pages) == 1;
  std::fclose(statm);
  if (!read) return false;
  const rlim_t limit = pages * static_cast<rlim_t>(sysconf(_SC_PAGESIZE)) + (2 << 20);
  const rlimit as = {limit, limit};
  if (setrlimit(RLIMIT_AS, &as) != 0) return false;
  try {
    std::thread probe([] {});
    probe.join();
    return false;
  } catch (const std::system_error&) {
    return true;
  }
}

}  // namespace perftk::testing

#endif  // PERFTK_TESTS_TESTING_FORBID_NEW_THREADS_H_
