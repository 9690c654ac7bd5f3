#include "base/perf_config.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/input_file.h"

namespace perftk::base {
namespace {

// A value with its quotes taken off and its comment cut, outer blanks gone.
std::string ValueOf(absl::string_view raw) {
  std::string value;
  bool quoted = false;
  for (size_t i = 0; i < raw.size(); ++i) {
    const char c = raw[i];
    if (c == '"') {
      quoted = !quoted;
    } else if (!quoted && (c == '#' || c == ';')) {
      break;
    } else if (c == '\\' && i + 1 < raw.size()) {
      value += raw[++i];
    } else {
      value += c;
    }
  }
  return std::string(absl::StripAsciiWhitespace(value));
}

// The text of the configuration file at `path`; "" when it is missing, is
// not a regular file (a FIFO there never blocks the run) or cannot be read.
std::string ReadConfigFile(const std::string& path) {
  absl::StatusOr<int> fd = OpenInputFile(path, "perf configuration file");
  if (!fd.ok()) return "";
  constexpr size_t kMaxSize = size_t{1} << 20;  // perf's own are a few lines
  std::string text;
  char buffer[4096];
  while (text.size() < kMaxSize) {
    const ssize_t n = read(*fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buffer, static_cast<size_t>(n));
  }
  close(*fd);
  return text;
}

}  // namespace

std::optional<std::string> FindPerfConfigValue(absl::string_view text, absl::string_view section,
                                               absl::string_view name) {
  std::optional<std::string> found;
  bool in_section = false;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    line = absl::StripAsciiWhitespace(line);
    if (line.empty() || line[0] == '#' || line[0] == ';') continue;
    if (line[0] == '[') {
      const size_t end = line.find(']');
      absl::string_view header = line.substr(1, end == absl::string_view::npos ? 0 : end - 1);
      in_section = absl::EqualsIgnoreCase(absl::StripAsciiWhitespace(header), section);
      continue;
    }
    if (!in_section) continue;
    const size_t equals = line.find('=');
    if (equals == absl::string_view::npos) continue;
    if (absl::EqualsIgnoreCase(absl::StripAsciiWhitespace(line.substr(0, equals)), name)) {
      found = ValueOf(line.substr(equals + 1));
    }
  }
  return found;
}

std::optional<std::string> PerfConfigValue(absl::string_view section, absl::string_view name) {
  std::vector<std::string> files;
  if (const char* only = std::getenv("PERF_CONFIG"); only != nullptr) {
    if (*only != '\0') files.push_back(only);
  } else {
    files.push_back("/etc/perfconfig");
    if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
      files.push_back(absl::StrCat(home, "/.perfconfig"));
    }
  }
  std::optional<std::string> value;
  for (const std::string& file : files) {
    if (std::optional<std::string> v = FindPerfConfigValue(ReadConfigFile(file), section, name)) {
      value = std::move(v);
    }
  }
  return value;
}

}  // namespace perftk::base
