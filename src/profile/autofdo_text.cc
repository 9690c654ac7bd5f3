#include "profile/autofdo_text.h"

#include <optional>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/printable.h"
#include "profile/numbers.h"

namespace perftk::profile {

void AppendAutoFdoText(const BinaryKey& key, const BinaryCounts& counts, std::string& out) {
  absl::StrAppend(&out, counts.ranges.size(), "\n");
  for (const auto& [range, count] : counts.ranges) {
    absl::StrAppendFormat(&out, "%x-%x:%d\n", range.first, range.second, count);
  }
  absl::StrAppend(&out, counts.addresses.size(), "\n");
  for (const auto& [address, count] : counts.addresses) {
    absl::StrAppendFormat(&out, "%x:%d\n", address, count);
  }
  absl::StrAppend(&out, counts.branches.size(), "\n");
  for (const auto& [branch, count] : counts.branches) {
    absl::StrAppendFormat(&out, "%x->%x:%d\n", branch.first, branch.second, count.taken);
  }
  if (!key.build_id.empty()) {
    absl::StrAppend(&out, "// build_id: 0x", key.build_id.ToHex(), "\n");
  }
  absl::StrAppend(&out, "// ", key.path, "\n\n");
}

std::string AutoFdoText(const Profile& profile) {
  std::string out;
  for (const auto& [key, counts] : profile.binaries()) AppendAutoFdoText(key, counts, out);
  return out;
}

namespace {

// "A SEPARATOR B" with A hex and B parsed by `second`.
bool SplitPair(absl::string_view line, absl::string_view separator, uint64_t& first,
               absl::string_view& rest) {
  size_t at = line.find(separator);
  if (at == absl::string_view::npos) return false;
  std::optional<uint64_t> value = ParseHex(line.substr(0, at));
  if (!value) return false;
  first = *value;
  rest = line.substr(at + separator.size());
  return true;
}

// "START-END:COUNT" (or "FROM->TO:COUNT" with separator "->").
bool ParsePairLine(absl::string_view line, absl::string_view separator, AddressPair& pair,
                   uint64_t& count) {
  absl::string_view rest;
  if (!SplitPair(line, separator, pair.first, rest)) return false;
  absl::string_view tail;
  if (!SplitPair(rest, ":", pair.second, tail)) return false;
  std::optional<uint64_t> value = ParseDecimal(tail);
  if (!value) return false;
  count = *value;
  return true;
}

bool ParseAddressLine(absl::string_view line, uint64_t& address, uint64_t& count) {
  absl::string_view tail;
  if (!SplitPair(line, ":", address, tail)) return false;
  std::optional<uint64_t> value = ParseDecimal(tail);
  if (!value) return false;
  count = *value;
  return true;
}

absl::StatusOr<uint64_t> ReadCountLine(LineReader& lines, absl::string_view what) {
  absl::StatusOr<std::optional<absl::string_view>> line = lines.Next();
  if (!line.ok()) return line.status();
  if (!*line)
    return lines.Error(absl::StrCat("the text ends where the number of ", what, " belongs"));
  std::optional<uint64_t> n = ParseDecimal(**line);
  if (!n) {
    return lines.Error(
        absl::StrCat("expected the number of ", what, ", got '", base::Printable(**line), "'"));
  }
  return *n;
}

// Reads `n` entry lines with `parse`, which returns false on a bad line.
template <typename Parse>
absl::Status ReadEntries(LineReader& lines, uint64_t n, absl::string_view form, Parse parse) {
  for (uint64_t i = 0; i < n; ++i) {
    absl::StatusOr<std::optional<absl::string_view>> line = lines.Next();
    if (!line.ok()) return line.status();
    if (!*line) {
      return lines.Error(absl::StrCat("the text ends after ", i, " of ", n, " lines ", form));
    }
    if (!parse(**line))
      return lines.Error(absl::StrCat("expected ", form, ", got '", base::Printable(**line), "'"));
  }
  return absl::OkStatus();
}

// The text after "// build_id: " when `comment` starts so, else nullopt.
std::optional<absl::string_view> BuildIdField(absl::string_view comment) {
  constexpr absl::string_view kPrefix = "// build_id: ";
  if (!absl::StartsWith(comment, kPrefix)) return std::nullopt;
  absl::string_view id = comment.substr(kPrefix.size());
  if (absl::StartsWith(id, "0x")) id.remove_prefix(2);
  return id;
}

// One binary's text, its first line (the number of ranges) already read.
absl::Status ReadBinary(LineReader& lines, uint64_t range_lines, Profile& into) {
  BinaryCounts counts;
  absl::Status status = ReadEntries(lines, range_lines, "START-END:COUNT with START <= END",
                                    [&](absl::string_view line) {
                                      AddressPair range;
                                      uint64_t count;
                                      if (!ParsePairLine(line, "-", range, count)) return false;
                                      if (range.second < range.first)
                                        return false;  // a reversed range: no code
                                      uint64_t& sum = EntryOf(counts.ranges, range);
                                      sum = AddClamped(sum, count);
                                      return true;
                                    });
  if (!status.ok()) return status;
  absl::StatusOr<uint64_t> n = ReadCountLine(lines, "address samples");
  if (!n.ok()) return n.status();
  status = ReadEntries(lines, *n, "ADDRESS:COUNT", [&](absl::string_view line) {
    uint64_t address, count;
    if (!ParseAddressLine(line, address, count)) return false;
    uint64_t& sum = EntryOf(counts.addresses, address);
    sum = AddClamped(sum, count);
    return true;
  });
  if (!status.ok()) return status;
  n = ReadCountLine(lines, "branches");
  if (!n.ok()) return n.status();
  status = ReadEntries(lines, *n, "FROM->TO:COUNT", [&](absl::string_view line) {
    AddressPair branch;
    uint64_t count;
    if (!ParsePairLine(line, "->", branch, count)) return false;
    BranchCount& sum = EntryOf(counts.branches, branch);
    sum.taken = AddClamped(sum.taken, count);
    return true;
  });
  if (!status.ok()) return status;
  // "// build_id: 0x..." (optional) then "// PATH", up to an empty line or
  // the next binary.
  BinaryKey key;
  bool have_path = false;
  for (int comment = 0;; ++comment) {
    absl::StatusOr<std::optional<absl::string_view>> line = lines.Next();
    if (!line.ok()) return line.status();
    if (!*line || (*line)->empty()) break;
    if (!absl::StartsWith(**line, "//")) {
      lines.Unread();
      break;
    }
    if (have_path) return lines.Error("a comment line after the binary's path");
    std::optional<absl::string_view> id_field = comment == 0 ? BuildIdField(**line) : std::nullopt;
    if (id_field) {
      std::optional<base::BuildId> id = ParseBuildId(*id_field);
      if (!id) {
        return lines.Error(absl::StrCat("build id \"", absl::CHexEscape(*id_field),
                                        "\" is not 1 to 20 bytes in hex"));
      }
      key.build_id = *id;
      continue;
    }
    if (!absl::StartsWith(**line, "// ")) return lines.Error("expected \"// PATH\"");
    key.path = std::string((*line)->substr(3));
    have_path = true;
  }
  into.Add(key, counts);
  return absl::OkStatus();
}

}  // namespace

absl::Status ReadAutoFdoText(LineReader& lines, Profile& into) {
  if (into.format() && *into.format() != Format::kAutoFdo) {
    return absl::InvalidArgumentError(absl::StrCat(lines.name(), ": an AutoFDO text, but a ",
                                                   FormatName(*into.format()), " is expected"));
  }
  Profile text(Format::kAutoFdo);
  while (true) {
    absl::StatusOr<std::optional<absl::string_view>> line = lines.Next();
    if (!line.ok()) return line.status();
    if (!*line) break;
    if ((*line)->empty()) continue;
    std::optional<uint64_t> ranges = ParseDecimal(**line);
    if (!ranges) {
      return lines.Error(absl::StrCat("expected the number of ranges of a binary, got '",
                                      base::Printable(**line), "'"));
    }
    if (absl::Status s = ReadBinary(lines, *ranges, text); !s.ok()) return s;
  }
  return into.Add(text);
}

}  // namespace perftk::profile
