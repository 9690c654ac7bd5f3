// Text from files and command lines made safe to print on a terminal.
#ifndef PERFTK_BASE_PRINTABLE_H_
#define PERFTK_BASE_PRINTABLE_H_

#include <string>

#include "absl/strings/string_view.h"

namespace perftk::base {

// `text` with control characters (below 0x20, and 0x7f) and bytes that are
// not part of valid UTF-8 written as \n, \t, \r, \\ or \xNN, so that a
// path or a name read from a file cannot move the cursor, recolour the
// terminal or hide what follows. Printable ASCII and UTF-8 stay as they are.
std::string Printable(absl::string_view text);

}  // namespace perftk::base

#endif  // PERFTK_BASE_PRINTABLE_H_
