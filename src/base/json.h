// JSON text for the --json outputs.
#ifndef PERFTK_BASE_JSON_H_
#define PERFTK_BASE_JSON_H_

#include <string>

#include "absl/strings/string_view.h"

namespace perftk::base {

// `text` as a JSON string, quotes included. Quote and backslash are
// escaped, control characters and DEL too (\n, \r, \t by name, others as
// \u00XX); valid UTF-8 is kept as it is, and a byte that is not part of
// valid UTF-8 (file names are bytes) becomes \u00XX, its Latin-1 reading,
// so that the output is always valid JSON.
std::string JsonString(absl::string_view text);

}  // namespace perftk::base

#endif  // PERFTK_BASE_JSON_H_
