#include "profile/bolt_text.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/printable.h"
#include "profile/numbers.h"

namespace perftk::profile {

std::string BoltText(const BinaryKey& key, const BinaryCounts& counts) {
  std::string out;
  // The build id goes on the first address of the first line only.
  std::string id = key.build_id.empty() ? "" : absl::StrCat(key.build_id.ToHex(), ":");
  for (const auto& [range, count] : counts.ranges) {
    absl::StrAppendFormat(&out, "F %s%x %x %d\n", id, range.first, range.second, count);
    id.clear();
  }
  for (const auto& [branch, count] : counts.branches) {
    absl::StrAppendFormat(&out, "B %s%x %x %d %d\n", id, branch.first, branch.second, count.taken,
                          count.mispredicted);
    id.clear();
  }
  return out;
}

void AddFallThroughs(BinaryCounts& counts) {
  std::map<uint64_t, uint64_t> ends;
  for (const auto& [range, count] : counts.ranges) {
    uint64_t& sum = ends[range.second];
    sum = AddClamped(sum, count);
  }
  for (const auto& [branch, count] : counts.branches) {
    auto it = ends.find(branch.first);
    if (it != ends.end()) it->second -= std::min(it->second, count.taken);
  }
  for (const auto& [end, count] : ends) {
    if (count == 0 || end > UINT64_MAX - 4) continue;
    uint64_t& sum = EntryOf(counts.ranges, {end, end + 4});
    sum = AddClamped(sum, count);
  }
}

namespace {

// "ID:ADDRESS" or "ADDRESS"; sets `id` when there is one.
std::optional<uint64_t> ParseLocation(absl::string_view field, base::BuildId& id) {
  size_t colon = field.find(':');
  if (colon != absl::string_view::npos) {
    std::optional<base::BuildId> parsed = ParseBuildId(field.substr(0, colon));
    if (!parsed) return std::nullopt;
    id = *std::move(parsed);
    field.remove_prefix(colon + 1);
  }
  return ParseHex(field);
}

// Splits `line` at spaces and tabs into at most 6 fields; returns how many
// there are (6 when there are more).
size_t SplitFields(absl::string_view line, absl::string_view (&fields)[6]) {
  size_t n = 0;
  size_t at = 0;
  while (n < 6) {
    while (at < line.size() && (line[at] == ' ' || line[at] == '\t')) ++at;
    if (at == line.size()) break;
    size_t end = at;
    while (end < line.size() && line[end] != ' ' && line[end] != '\t') ++end;
    fields[n++] = line.substr(at, end - at);
    at = end;
  }
  return n;
}

}  // namespace

absl::Status ReadBoltText(LineReader& lines, Profile& into) {
  if (into.format() && *into.format() != Format::kBolt) {
    return absl::InvalidArgumentError(absl::StrCat(lines.name(), ": a BOLT text, but an ",
                                                   FormatName(*into.format()), " is expected"));
  }
  BinaryCounts counts;
  base::BuildId build_id;
  uint64_t build_id_line = 0;
  while (true) {
    absl::StatusOr<std::optional<absl::string_view>> line = lines.Next();
    if (!line.ok()) return line.status();
    if (!*line) break;
    absl::string_view fields[6];
    const size_t field_count = SplitFields(**line, fields);
    if (field_count == 0) continue;
    const bool branch = fields[0] == "B";
    if (!branch && fields[0] != "F") {
      return lines.Error(absl::StrCat("expected an F or B line (as perftk writes), got '",
                                      base::Printable(**line), "'"));
    }
    if (field_count != (branch ? 5u : 4u)) {
      return lines.Error(absl::StrCat(
          branch ? "expected 'B FROM TO COUNT MISPREDICTED'" : "expected 'F START END COUNT'",
          ", got '", base::Printable(**line), "'"));
    }
    base::BuildId ids[2];
    std::optional<uint64_t> first = ParseLocation(fields[1], ids[0]);
    std::optional<uint64_t> second = ParseLocation(fields[2], ids[1]);
    std::optional<uint64_t> count = ParseDecimal(fields[3]);
    std::optional<uint64_t> mispredicted = branch ? ParseDecimal(fields[4]) : 0;
    if (!first || !second || !count || !mispredicted) {
      return lines.Error(
          absl::StrCat("a field is not a number (hex addresses, decimal counts): '", **line, "'"));
    }
    for (const base::BuildId& id : ids) {
      if (id.empty()) continue;
      if (build_id.empty()) {
        build_id = id;
        build_id_line = lines.line_number();
      } else if (id != build_id) {
        return lines.Error(absl::StrCat("build id ", id.ToHex(), ", but line ", build_id_line,
                                        " gave ", build_id.ToHex(),
                                        ": a BOLT text is the profile of one binary"));
      }
    }
    if (branch) {
      BranchCount& sum = EntryOf(counts.branches, {*first, *second});
      sum.taken = AddClamped(sum.taken, *count);
      sum.mispredicted = AddClamped(sum.mispredicted, *mispredicted);
    } else {
      uint64_t& sum = EntryOf(counts.ranges, {*first, *second});
      sum = AddClamped(sum, *count);
    }
  }
  Profile text(Format::kBolt);
  if (!counts.ranges.empty() || !counts.branches.empty()) {
    if (build_id.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          lines.name(),
          ": this BOLT text names no build id (perftk writes one as ID:ADDRESS on its first "
          "line), so its binary is unknown: it cannot be merged"));
    }
    text.Add(BinaryKey{"", build_id}, counts);
  }
  return into.Add(text);
}

}  // namespace perftk::profile
