// The command line's warnings: "perftk: warning: <line>" on stderr, one
// line each (the rooms that made them escaped what came from files).
#ifndef PERFTK_CLI_WARNINGS_H_
#define PERFTK_CLI_WARNINGS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "base/warnings.h"

namespace perftk::cli {

class StderrWarnings final : public base::WarningSink {
 public:
  void Warn(std::string line) override;
};

// Prints the warnings a tool kept.
void PrintWarnings(const std::vector<std::string>& lines);

// "N counts reached M, the largest perf2bolt reads, and were kept there".
void WarnSaturated(uint64_t counts);

}  // namespace perftk::cli

#endif  // PERFTK_CLI_WARNINGS_H_
