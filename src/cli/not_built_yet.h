// The answer of a subcommand whose mode is not built yet: exit status 2 and
// a message naming the issue that tracks it. No output is written.
#ifndef PERFTK_CLI_NOT_BUILT_YET_H_
#define PERFTK_CLI_NOT_BUILT_YET_H_

#include "absl/strings/string_view.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace perftk::cli {

inline absl::Status NotBuiltYet(absl::string_view subcommand, int issue) {
  return absl::UnimplementedError(absl::StrCat(
      subcommand, " is not built yet (tracked in issue ", issue, "); nothing was written"));
}

}  // namespace perftk::cli

#endif  // PERFTK_CLI_NOT_BUILT_YET_H_
