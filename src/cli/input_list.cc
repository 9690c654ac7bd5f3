#include "cli/input_list.h"

#include <optional>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "profile/line_reader.h"

namespace perftk::cli {

absl::Status ForEachInput(const std::vector<std::string>& inputs, absl::string_view list_role,
                          const std::function<absl::Status(const std::string&)>& each) {
  for (const std::string& input : inputs) {
    if (input.size() < 2 || input[0] != '@') {
      if (absl::Status s = each(input); !s.ok()) return s;
      continue;
    }
    absl::StatusOr<profile::LineReader> lines =
        profile::LineReader::Open(input.substr(1), list_role);
    if (!lines.ok()) return lines.status();
    while (true) {
      absl::StatusOr<std::optional<absl::string_view>> line = lines->Next();
      if (!line.ok()) return line.status();
      if (!*line) break;
      absl::string_view path = **line;
      if (absl::EndsWith(path, "\r")) path.remove_suffix(1);  // a list written on Windows
      if (path.empty() || path[0] == '#') continue;
      if (absl::Status s = each(std::string(path)); !s.ok()) return s;
    }
  }
  return absl::OkStatus();
}

}  // namespace perftk::cli
