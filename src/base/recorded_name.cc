#include "base/recorded_name.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/input_file.h"
#include "base/printable.h"

namespace perftk::base {

bool HasDotDotComponent(absl::string_view name) {
  size_t start = 0;
  while (start <= name.size()) {
    size_t slash = name.find('/', start);
    if (slash == absl::string_view::npos) slash = name.size();
    if (name.substr(start, slash - start) == "..") return true;
    start = slash + 1;
  }
  return false;
}

absl::StatusOr<std::string> JoinRecordedName(absl::string_view root, absl::string_view name,
                                             bool single_component) {
  if (HasDotDotComponent(name)) {
    return absl::InvalidArgumentError(
        absl::StrCat("the recorded name \"", Printable(name), "\" has a '..' component: refused"));
  }
  if (single_component && (name.empty() || name == "." || name.find('/') != name.npos)) {
    return absl::InvalidArgumentError(
        absl::StrCat("the recorded name \"", Printable(name), "\" is not a plain name: refused"));
  }
  while (!root.empty() && root.back() == '/') root.remove_suffix(1);
  while (!name.empty() && name.front() == '/') name.remove_prefix(1);
  return absl::StrCat(root, "/", name);
}

absl::StatusOr<std::string> ReadSmallRegularFile(const std::string& path, absl::string_view role,
                                                 size_t limit) {
  absl::StatusOr<int> fd = OpenInputFile(path, role, InputKind::kRegularFile);
  if (!fd.ok()) return fd.status();
  std::string bytes;
  char buffer[4096];
  for (;;) {
    const ssize_t got = read(*fd, buffer, sizeof(buffer));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      const int error = errno;
      close(*fd);
      return absl::FailedPreconditionError(
          absl::StrCat(Printable(path), ": cannot read the ", role, ": ", std::strerror(error)));
    }
    if (got == 0) break;
    if (bytes.size() + static_cast<size_t>(got) > limit) {
      close(*fd);
      return absl::InvalidArgumentError(
          absl::StrCat(Printable(path), ": the ", role, " is larger than ", limit, " bytes"));
    }
    bytes.append(buffer, static_cast<size_t>(got));
  }
  close(*fd);
  return bytes;
}

}  // namespace perftk::base
