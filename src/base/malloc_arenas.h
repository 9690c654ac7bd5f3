// Keeps glibc's per-thread heaps within the process's address-space limit.
//
// glibc gives each thread that allocates a heap of its own (an arena),
// which reserves 64 MB of address space, mapped as 128 MB first to align
// it. Under a tight RLIMIT_AS (`ulimit -v`) that mapping fails, and the
// thread then maps every chunk it allocates on its own: slowly, and with
// far more address space, so that a run with threads ran out of memory
// under a limit one thread ran under.
//
// FitMallocArenasToAddressLimit (call once, first thing in main, before
// any thread starts) caps the number of arenas at what half the address
// space left under the limit can hold, down to the main arena alone, which
// the threads then share behind its lock. Without a limit, or under one
// that holds glibc's own cap (8 per core), nothing changes.
#ifndef PERFTK_BASE_MALLOC_ARENAS_H_
#define PERFTK_BASE_MALLOC_ARENAS_H_

#include <cstdint>
#include <optional>

namespace perftk::base {

// The arenas, the main one included, that `free_bytes` of address space
// hold (half of it for arenas, 128 MB each), at least 1; nullopt when they
// are at least `default_cap`, glibc's own cap.
std::optional<int> ArenasThatFit(uint64_t free_bytes, int default_cap);

void FitMallocArenasToAddressLimit();

}  // namespace perftk::base

#endif  // PERFTK_BASE_MALLOC_ARENAS_H_
