#include "base/input_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/file_roles.h"
#include "base/printable.h"

namespace perftk::base {
namespace {

absl::Status OpenError(const std::string& path, absl::string_view role, int error) {
  std::string message =
      absl::StrCat(Printable(path), ": cannot open the ", role, ": ", std::strerror(error));
  if (error == ENOENT) return absl::NotFoundError(message);
  return absl::FailedPreconditionError(message);
}

}  // namespace

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
  int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return OpenError(path, role, errno);
  struct stat st;
  if (fstat(fd, &st) != 0) {
    const int error = errno;
    close(fd);
    return OpenError(path, role, error);
  }
  const bool stream = S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode);
  if (!S_ISREG(st.st_mode) && !(stream && kind == InputKind::kFileOrStream)) {
    close(fd);
    return absl::InvalidArgumentError(absl::StrCat(Printable(path), ": the ", role, " is ",
                                                   DescribeFileType(st.st_mode),
                                                   ", not a regular file"));
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
