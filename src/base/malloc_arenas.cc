#include "base/malloc_arenas.h"

#include <malloc.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <thread>

namespace perftk::base {
namespace {

constexpr uint64_t kArenaReservation = uint64_t{128} << 20;  // 64 MB, aligned

// The address space the process has mapped now (/proc/self/statm's first
// field, in pages); nullopt if it cannot be read.
std::optional<uint64_t> MappedBytes() {
  std::FILE* statm = std::fopen("/proc/self/statm", "re");
  if (statm == nullptr) return std::nullopt;
  unsigned long long pages = 0;
  const bool read = std::fscanf(statm, "%llu", &pages) == 1;
  std::fclose(statm);
  if (!read) return std::nullopt;
  return pages * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

}  // namespace

std::optional<int> ArenasThatFit(uint64_t free_bytes, int default_cap) {
  const uint64_t arenas = std::max<uint64_t>(1, free_bytes / 2 / kArenaReservation);
  if (arenas >= static_cast<uint64_t>(default_cap)) return std::nullopt;
  return static_cast<int>(arenas);
}

void FitMallocArenasToAddressLimit() {
#ifdef M_ARENA_MAX
  rlimit limit{};
  if (getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return;
  const std::optional<uint64_t> mapped = MappedBytes();
  if (!mapped) return;
  const uint64_t free_bytes = limit.rlim_cur > *mapped ? limit.rlim_cur - *mapped : 0;
  const int default_cap = 8 * static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (std::optional<int> arenas = ArenasThatFit(free_bytes, default_cap)) {
    mallopt(M_ARENA_MAX, *arenas);
  }
#endif
}

}  // namespace perftk::base
