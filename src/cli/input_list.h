// Command-line inputs given as paths or as "@FILE", which stands for the
// paths FILE lists, one per line (for more than a command line holds).
#ifndef PERFTK_CLI_INPUT_LIST_H_
#define PERFTK_CLI_INPUT_LIST_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace perftk::cli {

// Calls `each` with every input path in order, "@FILE" replaced by the
// paths FILE lists, one a line (a line may end in CR LF; empty lines and
// lines that start with '#' are skipped), reading the list as it goes: a
// list of any length is never held whole. `list_role` names a list file in
// its messages, e.g. "list of inputs (@FILE)". Stops at the first error.
absl::Status ForEachInput(const std::vector<std::string>& inputs, absl::string_view list_role,
                          const std::function<absl::Status(const std::string&)>& each);

}  // namespace perftk::cli

#endif  // PERFTK_CLI_INPUT_LIST_H_
