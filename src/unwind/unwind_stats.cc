#include "unwind/unwind_stats.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace perftk::unwind {
namespace {

// " (12 no CFI, 3 stack copy too short)": the non-zero counts by reason.
std::string ByReason(const std::array<uint64_t, UnwindStats::kStops>& counts,
                     uint64_t no_registers) {
  std::vector<std::string> parts;
  for (size_t i = 0; i < counts.size(); ++i) {
    if (counts[i] == 0) continue;
    parts.push_back(absl::StrCat(counts[i], " ", UnwindStopName(static_cast<UnwindStop>(i))));
  }
  if (no_registers != 0) parts.push_back(absl::StrCat(no_registers, " no user registers"));
  return parts.empty() ? "" : absl::StrCat(" (", absl::StrJoin(parts, ", "), ")");
}

}  // namespace

const char* UnwindStopName(UnwindStop stop) {
  switch (stop) {
    case UnwindStop::kOutermost:
      return "outermost frame";
    case UnwindStop::kDepthLimit:
      return "frame limit";
    case UnwindStop::kNoCfi:
      return "no CFI";
    case UnwindStop::kStackTooShort:
      return "stack copy too short";
    case UnwindStop::kUnknownMap:
      return "unknown map";
    case UnwindStop::kUnrecordedMemory:
      return "memory not recorded";
  }
  return "?";
}

std::string DescribeUnwindStats(const UnwindStats& s) {
  return absl::StrCat(s.with_stack, " of ", s.samples, " samples had a stack copy: ", s.full,
                      " unwound fully, ", s.partly_total(), " partly", ByReason(s.partly, 0), ", ",
                      s.not_at_all_total(), " not at all", ByReason(s.not_at_all, s.no_registers));
}

uint64_t UnwindStats::partly_total() const {
  uint64_t total = 0;
  for (uint64_t n : partly) total += n;
  return total;
}

uint64_t UnwindStats::not_at_all_total() const {
  uint64_t total = no_registers;
  for (uint64_t n : not_at_all) total += n;
  return total;
}

void UnwindStats::Add(const UnwindStats& other) {
  samples += other.samples;
  with_stack += other.with_stack;
  full += other.full;
  no_registers += other.no_registers;
  for (size_t i = 0; i < kStops; ++i) {
    partly[i] += other.partly[i];
    not_at_all[i] += other.not_at_all[i];
  }
  frames += other.frames;
  frames_taken_over += other.frames_taken_over;
}

}  // namespace perftk::unwind
