// What `perftk unwind` counts of its samples, and the summary line that
// says it.
#ifndef PERFTK_UNWIND_UNWIND_STATS_H_
#define PERFTK_UNWIND_UNWIND_STATS_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "unwind/process_unwinder.h"

namespace perftk::unwind {

struct UnwindStats {
  static constexpr size_t kStops = 6;  // UnwindStop values
  uint64_t samples = 0;
  uint64_t with_stack = 0;                    // samples with REGS_USER and STACK_USER
  uint64_t full = 0;                          // unwound to the outermost frame (or max_frames)
  uint64_t no_registers = 0;                  // no user registers (kernel threads): not unwound
  std::array<uint64_t, kStops> partly{};      // by UnwindStop: callers found, then a stop
  std::array<uint64_t, kStops> not_at_all{};  // by UnwindStop: no caller found
  uint64_t frames = 0;                        // user frames found, in all
  uint64_t frames_taken_over = 0;             // of them, taken over from an earlier sample
  uint64_t partly_total() const;
  uint64_t not_at_all_total() const;  // including no_registers
  // Adds every count of `other`.
  void Add(const UnwindStats& other);
};

// The name the summary gives a stop reason, e.g. "no CFI".
const char* UnwindStopName(UnwindStop stop);

// The summary of a run: "648 of 650 samples had a stack copy: 640 unwound
// fully, 6 partly (6 no CFI), 2 not at all (2 unknown map)".
std::string DescribeUnwindStats(const UnwindStats& stats);

}  // namespace perftk::unwind

#endif  // PERFTK_UNWIND_UNWIND_STATS_H_
