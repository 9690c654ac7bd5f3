// PERF_RECORD_TIME_CONV as arithmetic: the CPU's cycle counter (the TSC on
// x86, CNTVCT on arm64; what a jitdump with ARCH_TIMESTAMP carries) turned
// into perf's clock, as the kernel publishes it in the mmap'd event page
// (time_zero + cycles * time_mult >> time_shift, split to not overflow, and
// with cap_user_time_short the counter's short width folded back in).
#ifndef PERFTK_PERF_TIME_CONV_H_
#define PERFTK_PERF_TIME_CONV_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "perf/record.h"

namespace perftk::perf {

struct TimeConversion {
  uint64_t time_shift = 0, time_mult = 0, time_zero = 0;
  uint64_t time_cycles = 0, time_mask = 0;
  bool cap_user_time_short = false;

  // From a TIME_CONV record; a time_shift of 64 or more is an error naming
  // the record's offset.
  static absl::StatusOr<TimeConversion> From(const Record& record);
  uint64_t ToPerfTime(uint64_t cycles) const;
};

}  // namespace perftk::perf

#endif  // PERFTK_PERF_TIME_CONV_H_
