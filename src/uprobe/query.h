// A function name as the user writes it for uprobe-offset:
//   NAME            the default version (what an unversioned reference binds to)
//   NAME@VER        exactly version VER (hidden or default)
//   NAME@@VER       version VER, which must be the default one
//   ...+OFFSET      OFFSET bytes into the function (hex with 0x, or decimal)
#ifndef PERFTK_UPROBE_QUERY_H_
#define PERFTK_UPROBE_QUERY_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace perftk::uprobe {

struct Query {
  std::string text;  // as given
  std::string name;
  std::string version;                // empty: no version asked for
  bool default_version_only = false;  // NAME@@VER
  uint64_t offset = 0;                // +OFFSET
};

absl::StatusOr<Query> ParseQuery(absl::string_view text);

}  // namespace perftk::uprobe

#endif  // PERFTK_UPROBE_QUERY_H_
