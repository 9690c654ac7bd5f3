// The last few mappings `perftk aslr` moved an address through, with how
// far they move, so that the addresses of one callchain (mostly in one or
// two mappings of one process and the kernel) skip the map and table
// lookups. Owned by one tool on one thread.
//
// An entry is right only while the machines and the remap table are as they
// were when it was remembered: the owner clears the cache whenever a record
// changes either.
#ifndef PERFTK_ASLR_RECENT_TRANSLATIONS_H_
#define PERFTK_ASLR_RECENT_TRANSLATIONS_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>

namespace perftk::aslr {

class RecentTranslations {
 public:
  // The moved address if a remembered mapping of (pid, cpumode) covers addr.
  std::optional<uint64_t> Find(int32_t pid, uint16_t cpumode, uint64_t addr) const {
    for (size_t i = 0; i < count_; ++i) {
      const Entry& e = entries_[i];
      if (e.start <= addr && addr < e.end && e.pid == pid && e.cpumode == cpumode) {
        return addr + e.delta;
      }
    }
    return std::nullopt;
  }

  // Every address in [start, end) seen by (pid, cpumode) moves by delta
  // (modulo 2^64). Replaces the oldest entry when full.
  void Remember(int32_t pid, uint16_t cpumode, uint64_t start, uint64_t end, uint64_t delta) {
    entries_[next_] = Entry{start, end, delta, pid, cpumode};
    next_ = (next_ + 1) % kEntries;
    if (count_ < kEntries) ++count_;
  }

  void Clear() { count_ = next_ = 0; }

 private:
  static constexpr size_t kEntries = 4;
  struct Entry {
    uint64_t start = 0;
    uint64_t end = 0;
    uint64_t delta = 0;
    int32_t pid = 0;
    uint16_t cpumode = 0;
  };
  std::array<Entry, kEntries> entries_;
  size_t count_ = 0;
  size_t next_ = 0;
};

}  // namespace perftk::aslr

#endif  // PERFTK_ASLR_RECENT_TRANSLATIONS_H_
