#include "perf/time_conv.h"

#include "absl/strings/str_format.h"

namespace perftk::perf {

absl::StatusOr<TimeConversion> TimeConversion::From(const Record& record) {
  absl::StatusOr<TimeConvRecord> view = TimeConvRecord::From(record);
  if (!view.ok()) return view.status();
  TimeConversion tc;
  tc.time_shift = view->time_shift();
  tc.time_mult = view->time_mult();
  tc.time_zero = view->time_zero();
  tc.time_cycles = view->time_cycles();
  tc.time_mask = view->time_mask();
  tc.cap_user_time_short = view->cap_user_time_short();
  if (tc.time_shift >= 64) {
    return absl::InvalidArgumentError(
        absl::StrFormat("offset %#x: TIME_CONV time_shift %u is not below 64", record.file_offset(),
                        tc.time_shift));
  }
  return tc;
}

uint64_t TimeConversion::ToPerfTime(uint64_t cycles) const {
  if (cap_user_time_short) cycles = time_cycles + ((cycles - time_cycles) & time_mask);
  uint64_t quot = cycles >> time_shift;
  uint64_t rem = cycles & ((uint64_t{1} << time_shift) - 1);
  uint64_t mult = static_cast<uint32_t>(time_mult);
  return time_zero + quot * mult + ((rem * mult) >> time_shift);
}

}  // namespace perftk::perf
