#include "cs_etm/itrace.h"

#include <cctype>

#include "absl/strings/str_cat.h"

namespace perftk::cs_etm {
namespace {

// Reads a decimal number at text[pos...]; nullopt-like false when none.
bool ReadNumber(absl::string_view text, size_t& pos, uint64_t& value) {
  size_t start = pos;
  uint64_t v = 0;
  while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) {
    uint64_t digit = static_cast<uint64_t>(text[pos] - '0');
    if (v > (UINT64_MAX - digit) / 10) return false;
    v = v * 10 + digit;
    ++pos;
  }
  if (pos == start) return false;
  value = v;
  return true;
}

// Skips an optional period unit after i's number: i, t, ns, us, ms.
void SkipUnit(absl::string_view text, size_t& pos) {
  absl::string_view rest = text.substr(pos);
  for (absl::string_view unit : {"ns", "us", "ms"}) {
    if (rest.substr(0, 2) == unit) {
      pos += 2;
      return;
    }
  }
  if (!rest.empty() && (rest[0] == 'i' || rest[0] == 't')) ++pos;
}

absl::Status Error(absl::string_view text, size_t pos, absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("--itrace='", text, "' at position ", pos, ": ", what));
}

}  // namespace

absl::StatusOr<ItraceOptions> ParseItrace(absl::string_view text) {
  ItraceOptions options;
  size_t pos = 0;
  while (pos < text.size()) {
    char letter = text[pos++];
    uint64_t number = 0;
    switch (letter) {
      case 'i': {
        options.instructions = true;
        if (ReadNumber(text, pos, number)) {
          if (number == 0) return Error(text, pos, "the instruction period must be positive");
          options.period = number;
        }
        // A unit may follow even without a number ("ius" is not valid in
        // perf, "i10us" is); only accept it after a number.
        if (number != 0) SkipUnit(text, pos);
        break;
      }
      case 'l':
        options.last_branch = true;
        if (ReadNumber(text, pos, number)) {
          if (number == 0 || number > kMaxLastBranchSize) {
            return Error(text, pos,
                         absl::StrCat("the branch stack size must be 1..", kMaxLastBranchSize));
          }
          options.last_branch_size = static_cast<uint32_t>(number);
        }
        break;
      case 'b':
        options.branches = true;
        break;
      case ',':
      case ' ':
        break;
      default:
        return Error(text, pos - 1,
                     absl::StrCat("'", std::string(1, letter),
                                  "' is not supported by cs-etm-decode (only i, l and b are)"));
    }
  }
  if (!options.instructions && !options.branches) {
    if (options.last_branch)
      return Error(text, pos, "l needs i (stacks go on instruction samples)");
    return Error(text, pos, "nothing to synthesize: give i and/or b");
  }
  if (options.last_branch && !options.instructions) {
    return Error(text, pos, "l needs i (stacks go on instruction samples)");
  }
  return options;
}

std::string FormatItrace(const ItraceOptions& options) {
  std::string out;
  if (options.instructions) absl::StrAppend(&out, "i", options.period, "i");
  if (options.last_branch) absl::StrAppend(&out, "l", options.last_branch_size);
  if (options.branches) absl::StrAppend(&out, "b");
  return out;
}

}  // namespace perftk::cs_etm
