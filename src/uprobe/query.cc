#include "uprobe/query.h"

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace perftk::uprobe {
namespace {

bool ParseOffset(absl::string_view text, uint64_t* value) {
  if (text.empty()) return false;
  if (absl::StartsWithIgnoreCase(text, "0x")) {
    text.remove_prefix(2);
    if (text.empty()) return false;
    for (char c : text) {
      if (!absl::ascii_isxdigit(static_cast<unsigned char>(c))) return false;
    }
    return absl::SimpleHexAtoi(text, value);
  }
  for (char c : text) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) return false;
  }
  return absl::SimpleAtoi(text, value);
}

}  // namespace

absl::StatusOr<Query> ParseQuery(absl::string_view text) {
  Query query;
  query.text = std::string(text);
  absl::string_view rest = text;
  if (const size_t plus = rest.rfind('+'); plus != absl::string_view::npos && plus > 0) {
    uint64_t offset = 0;
    if (ParseOffset(rest.substr(plus + 1), &offset)) {
      query.offset = offset;
      rest = rest.substr(0, plus);
    }
  }
  if (const size_t at = rest.find('@'); at != absl::string_view::npos) {
    absl::string_view version = rest.substr(at + 1);
    if (absl::ConsumePrefix(&version, "@")) query.default_version_only = true;
    if (version.empty() || absl::StrContains(version, '@')) {
      return absl::InvalidArgumentError(absl::StrCat(
          "bad function name '", text, "': expected NAME, NAME@VERSION or NAME@@VERSION"));
    }
    query.version = std::string(version);
    rest = rest.substr(0, at);
  }
  if (rest.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("bad function name '", text, "': empty name"));
  }
  query.name = std::string(rest);
  return query;
}

}  // namespace perftk::uprobe
