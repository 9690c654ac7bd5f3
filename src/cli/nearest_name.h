// "Did you mean ...?" for a mistyped subcommand or option name.
#ifndef PERFTK_CLI_NEAREST_NAME_H_
#define PERFTK_CLI_NEAREST_NAME_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace perftk::cli {

// The edit distance between two names, ignoring ASCII case: insertions,
// deletions, substitutions and swaps of two neighbours count one each.
size_t NameDistance(absl::string_view a, absl::string_view b);

// The candidate nearest to `typed`, if it is near enough to be what was
// meant: at most one edit for a name of up to 4 characters, two up to 8,
// three beyond ("fromat" -> "format", "ASLR" -> "aslr"); among equally near
// candidates the first wins. Else the one candidate that `typed` (3
// characters or more) begins ("uprobe" -> "uprobe-offset"). Else empty.
std::string NearestName(absl::string_view typed, const std::vector<std::string>& candidates);

}  // namespace perftk::cli

#endif  // PERFTK_CLI_NEAREST_NAME_H_
