// The --itrace options perftk's CoreSight decoder understands, parsed as
// perf parses them (tools/perf/util/auxtrace.c):
//   i[N][unit]  instruction samples every N instructions (default 100000);
//               the unit (i, t, ns, us, ms) is accepted and, as in perf's
//               cs-etm, ignored: N always counts instructions;
//   l[N]        attach the last N taken branches to instruction samples
//               (default 64, at most 1024);
//   b           one branch sample per taken branch (and per trace start).
// Letters may come in any order; any other letter is an error that names it.
// `taken_period` is perftk's own (--every-taken), outside perf's syntax.
#ifndef PERFTK_CS_ETM_ITRACE_H_
#define PERFTK_CS_ETM_ITRACE_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace perftk::cs_etm {

inline constexpr uint64_t kDefaultInstructionPeriod = 100000;
inline constexpr uint32_t kDefaultLastBranchSize = 64;
inline constexpr uint32_t kMaxLastBranchSize = 1024;

struct ItraceOptions {
  bool instructions = false;
  uint64_t period = kDefaultInstructionPeriod;
  bool last_branch = false;
  uint32_t last_branch_size = kDefaultLastBranchSize;
  bool branches = false;
  // Nonzero: instruction samples every `taken_period` taken branches, at the
  // target of the last, instead of every `period` instructions; with l, a
  // stack holds only the branches since the previous sample plus the one
  // that sample ended on (see SampleSynthesizer).
  uint64_t taken_period = 0;

  bool operator==(const ItraceOptions&) const = default;
};

absl::StatusOr<ItraceOptions> ParseItrace(absl::string_view text);

// The canonical spelling of options, e.g. "i100il64b".
std::string FormatItrace(const ItraceOptions& options);

}  // namespace perftk::cs_etm

#endif  // PERFTK_CS_ETM_ITRACE_H_
