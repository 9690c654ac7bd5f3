#include "profile/profile_file.h"

#include <optional>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "profile/autofdo_text.h"
#include "profile/bolt_text.h"

namespace perftk::profile {

absl::Status AddProfileText(LineReader& lines, Profile& into) {
  std::optional<Format> format;
  while (!format) {
    absl::StatusOr<std::optional<absl::string_view>> line = lines.Next();
    if (!line.ok()) return line.status();
    if (!*line) return absl::OkStatus();  // empty
    absl::string_view text = absl::StripLeadingAsciiWhitespace(**line);
    if (text.empty()) continue;
    if (absl::ascii_isdigit(static_cast<unsigned char>(text[0]))) {
      format = Format::kAutoFdo;
    } else if (text[0] == 'F' || text[0] == 'B') {
      format = Format::kBolt;
    } else {
      return lines.Error(absl::StrCat(
          "neither AutoFDO text (a number of ranges first) nor BOLT pre-aggregated text "
          "(F or B lines): '",
          text.substr(0, 80), "'"));
    }
    lines.Unread();
  }
  if (into.format() && *into.format() != *format) {
    return absl::InvalidArgumentError(absl::StrCat(lines.name(), ": ", FormatName(*format),
                                                   ", but the inputs before it are ",
                                                   FormatName(*into.format())));
  }
  if (*format == Format::kAutoFdo) return ReadAutoFdoText(lines, into);
  Profile text;
  if (absl::Status s = ReadBoltText(lines, text); !s.ok()) return s;
  if (!text.binaries().empty() && !into.binaries().empty() &&
      text.binaries().begin()->first != into.binaries().begin()->first) {
    return absl::InvalidArgumentError(
        absl::StrCat(lines.name(), ": a BOLT profile of build id ",
                     text.binaries().begin()->first.build_id.ToHex(),
                     ", but the inputs before it are of build id ",
                     into.binaries().begin()->first.build_id.ToHex(),
                     ": a BOLT text holds one binary, and two builds are never summed"));
  }
  return into.Add(text);
}

absl::Status AddProfileFile(const std::string& path, Profile& into) {
  absl::StatusOr<LineReader> lines = LineReader::Open(path, "profile");
  if (!lines.ok()) return lines.status();
  return AddProfileText(*lines, into);
}

}  // namespace perftk::profile
