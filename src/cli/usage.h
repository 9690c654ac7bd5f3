// Usage errors: a command line that parses but asks for what cannot be done
// as asked (a missing -o for a format that needs one, flags that exclude
// each other). They exit with status 2, like CLI11's parse and validation
// errors; every other error exits with 1 (see ExitCodeFor).
#ifndef PERFTK_CLI_USAGE_H_
#define PERFTK_CLI_USAGE_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace perftk::cli {

absl::Status UsageError(absl::string_view message);
bool IsUsageError(const absl::Status& status);

}  // namespace perftk::cli

#endif  // PERFTK_CLI_USAGE_H_
