#include "base/input_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/file_roles.h"
#include "base/printable.h"
#include "base/system_error.h"

namespace perftk::base {
namespace {

absl::Status OpenError(const std::string& path, absl::string_view role, int error) {
  std::string message =
      absl::StrCat(Printable(path), ": cannot open the ", role, ": ", SystemErrorText(error));
  // Not there: no such name, or a path through a file (a build-id cache
  // link to a file, looked up as a folder).
  if (error == ENOENT || error == ENOTDIR) return absl::NotFoundError(message);
  if (error == EACCES || error == EPERM) return absl::PermissionDeniedError(message);
  return absl::FailedPreconditionError(message);
}

bool SameType(const struct stat& a, const struct stat& b) {
  return (a.st_mode & S_IFMT) == (b.st_mode & S_IFMT);
}

absl::Status NotARegularFile(const std::string& path, absl::string_view role, mode_t mode) {
  return absl::InvalidArgumentError(absl::StrCat(Printable(path), ": the ", role, " is ",
                                                 DescribeFileType(mode), ", not a regular file"));
}

}  // namespace

absl::Status StatWithoutOpening(const std::string& path, absl::string_view role, struct stat& st) {
  const int fd = open(path.c_str(), O_PATH | O_CLOEXEC);
  if (fd < 0) return OpenError(path, role, errno);
  const int got = fstat(fd, &st);
  const int error = errno;
  close(fd);
  if (got != 0) return OpenError(path, role, error);
  return absl::OkStatus();
}

bool IsSystemError(const absl::Status& status) {
  return !status.ok() && !absl::IsNotFound(status) && !absl::IsInvalidArgument(status);
}

absl::Status MisplacedFileError(const std::string& path, absl::string_view what, mode_t mode) {
  return absl::InvalidArgumentError(absl::StrCat(Printable(path), ": where ", what, " belongs is ",
                                                 DescribeFileType(mode), ", not a regular file"));
}

const char* DescribeFileType(mode_t mode) {
  if (S_ISREG(mode)) return "a regular file";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

absl::StatusOr<int> OpenInputFile(const std::string& path, absl::string_view role, InputKind kind,
                                  struct stat* st_out) {
  // The type first, through a descriptor that reads nothing: a device or
  // FIFO where a file belongs is never opened for reading.
  struct stat seen;
  if (absl::Status s = StatWithoutOpening(path, role, seen); !s.ok()) return s;
  const bool stream = S_ISFIFO(seen.st_mode) || S_ISSOCK(seen.st_mode);
  if (!S_ISREG(seen.st_mode) && !(stream && kind == InputKind::kFileOrStream)) {
    return NotARegularFile(path, role, seen.st_mode);
  }
  int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return OpenError(path, role, errno);
  struct stat st;
  if (fstat(fd, &st) != 0) {
    const int error = errno;
    close(fd);
    return OpenError(path, role, error);
  }
  if (st.st_dev != seen.st_dev || st.st_ino != seen.st_ino || !SameType(st, seen)) {
    close(fd);
    return absl::FailedPreconditionError(
        absl::StrCat(Printable(path), ": the ", role, " was replaced while it was opened"));
  }
  if (absl::Status s = CheckNotAnOutput(path, &st, role); !s.ok()) {
    close(fd);
    return s;
  }
  NoteInput(path, st, role);
  if (stream) {
    close(fd);
    fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return OpenError(path, role, errno);
  } else {
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  }
  if (st_out != nullptr) *st_out = st;
  return fd;
}

}  // namespace perftk::base
