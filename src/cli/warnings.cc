#include "cli/warnings.h"

#include <cstdio>

#include "absl/strings/str_cat.h"
#include "profile/profile.h"

namespace perftk::cli {

void StderrWarnings::Warn(std::string line) {
  std::fprintf(stderr, "perftk: warning: %s\n", line.c_str());
}

void PrintWarnings(const std::vector<std::string>& lines) {
  StderrWarnings out;
  for (const std::string& line : lines) out.Warn(line);
}

void WarnSaturated(uint64_t counts) {
  StderrWarnings().Warn(absl::StrCat(counts, " counts reached ", profile::kMaxCount,
                                     ", the largest perf2bolt reads, and were kept there"));
}

}  // namespace perftk::cli
