#include "base/output_file.h"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "base/creation_mode.h"
#include "base/interrupt.h"
#include "base/printable.h"
#include "base/system_error.h"
#include "base/write_all.h"

namespace perftk::base {
namespace {

// Start writeback of a regular output every this many bytes, so that the
// fsync in Commit has little left to wait for. On the 24 MB aslr bench
// recording, 2 MB steps took perftk copy from 26 to 24 ms (8 MB steps:
// most of the file was still waiting for the disk at the fsync); 1 MB
// steps gained nothing more.
constexpr uint64_t kWritebackStep = uint64_t{2} << 20;

bool IsStreamType(mode_t mode) { return S_ISCHR(mode) || S_ISFIFO(mode); }

// Symbolic links are written through: what `path` names after following
// every link is what gets replaced, the links stay. A link to a file that
// does not exist yet makes that file (as a shell's `>` does); a loop, or a
// chain longer than the system follows, is an error.
absl::StatusOr<std::string> RenameTarget(const std::string& path, absl::string_view role) {
  constexpr int kMaxLinks = 40;  // the kernel's own limit (MAXSYMLINKS)
  std::string at = path;
  for (int hops = 0; hops <= kMaxLinks; ++hops) {
    struct stat link;
    if (lstat(at.c_str(), &link) != 0 || !S_ISLNK(link.st_mode)) {
      if (hops == 0) return at;
      char resolved[PATH_MAX];
      if (realpath(at.c_str(), resolved) != nullptr) return std::string(resolved);
      return ResolvedPath(at);  // does not exist yet: made in its folder
    }
    char target[PATH_MAX];
    ssize_t n = readlink(at.c_str(), target, sizeof(target) - 1);
    if (n < 0) {
      return absl::FailedPreconditionError(
          absl::StrCat(path, ": cannot read the symbolic link ", at, ": ", std::strerror(errno)));
    }
    target[n] = '\0';
    if (target[0] == '/') {
      at = target;
    } else {
      const size_t slash = at.rfind('/');
      at = slash == std::string::npos ? std::string(target)
                                      : absl::StrCat(at.substr(0, slash + 1), target);
    }
  }
  return absl::InvalidArgumentError(
      absl::StrCat(path, ": the ", role, " is a loop of symbolic links (or a chain of more than ",
                   kMaxLinks, "); refused"));
}

}  // namespace

OutputFile::OutputFile(std::string path, absl::string_view role)
    : path_(std::move(path)), claim_(path_, role) {}

OutputFile::~OutputFile() {
  if (owns_fd_ && fd_ >= 0) close(fd_);
  // pending_, if still listed, removes the temporary file.
}

absl::Status OutputFile::Error(absl::string_view what, int error) const {
  std::string name = path_ == "-" ? "standard output" : Printable(path_);
  if (error == EPIPE) {
    return ClosedPipeError(
        absl::StrCat(name, ": cannot ", what, ": the reader closed its end of the pipe"));
  }
  return absl::InternalError(absl::StrCat(name, ": cannot ", what, ": ", SystemErrorText(error)));
}

absl::StatusOr<std::unique_ptr<OutputFile>> OutputFile::Open(const std::string& path,
                                                             absl::string_view role) {
  std::unique_ptr<OutputFile> out(new OutputFile(path, role));
  if (absl::Status conflict = out->claim_.conflict(); !conflict.ok()) return conflict;
  if (path == "-") {
    out->fd_ = STDOUT_FILENO;
    return out;
  }
  struct stat st;
  const bool exists = stat(path.c_str(), &st) == 0;
  if (exists && S_ISDIR(st.st_mode)) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": the ", role, " is a directory"));
  }
  if (exists && S_ISSOCK(st.st_mode)) {
    // open(2) cannot open a socket file (ENXIO): say what to do instead.
    return absl::InvalidArgumentError(absl::StrCat(
        Printable(path), ": the ", role,
        " is a socket, which cannot be opened as a file; write to standard output (-o -) and "
        "pipe that into the socket"));
  }
  if (exists && IsStreamType(st.st_mode)) {
    out->fd_ = open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (out->fd_ < 0) return out->Error("open it for writing", errno);
    out->owns_fd_ = true;
    return out;
  }
  absl::StatusOr<std::string> target = RenameTarget(path, role);
  if (!target.ok()) return target.status();
  out->target_ = *std::move(target);
  std::string temp = absl::StrCat(out->target_, ".tmp.", getpid());
  int fd = -1;
  absl::StatusOr<PendingFile> pending = PendingFile::CreateNew(temp, &fd);
  if (!pending.ok()) {
    return out->Error(absl::StrCat("create ", temp, " beside it"), errno);
  }
  out->pending_ = std::move(*pending);
  out->stream_ = false;
  out->fd_ = fd;
  out->owns_fd_ = true;
  if (exists) fchmod(fd, st.st_mode & 07777);  // Commit narrows it (creation_mode.h)
  return out;
}

absl::Status OutputFile::Write(std::span<const std::byte> bytes) {
  if (int error = WriteAll(fd_, bytes); error != 0) return Error("write", error);
  written_ += bytes.size();
  if (pending_.listed() && written_ >= written_back_ + kWritebackStep) {
    sync_file_range(fd_, static_cast<off64_t>(written_back_),
                    static_cast<off64_t>(written_ - written_back_), SYNC_FILE_RANGE_WRITE);
    written_back_ = written_;
  }
  return absl::OkStatus();
}

absl::Status OutputFile::Write(absl::string_view text) {
  return Write(std::as_bytes(std::span<const char>(text.data(), text.size())));
}

absl::Status OutputFile::WriteAt(std::span<const std::byte> bytes, uint64_t offset) {
  if (stream_) {
    return absl::FailedPreconditionError(absl::StrCat(path_, ": written in order only"));
  }
  if (int error = WriteAllAt(fd_, bytes, offset); error != 0) return Error("write", error);
  return absl::OkStatus();
}

absl::Status OutputFile::Commit() {
  if (absl::Status conflict = claim_.conflict(); !conflict.ok()) return conflict;
  if (stream_) {
    if (owns_fd_) {
      int fd = fd_;
      fd_ = -1;
      if (close(fd) != 0) return Error("write", errno);
    }
    committed_ = true;
    return absl::OkStatus();
  }
  // No wider than the recordings read: the file may have been made before
  // one was opened, or kept the mode of the file it replaces.
  if (struct stat st; fstat(fd_, &st) == 0) {
    const mode_t narrowed = NarrowedMode(st.st_mode);
    if (narrowed != (st.st_mode & 07777)) fchmod(fd_, narrowed);
  }
  if (fsync(fd_) != 0 && errno != EINVAL) return Error("write", errno);
  int fd = fd_;
  fd_ = -1;
  if (close(fd) != 0) return Error("write", errno);
  if (absl::Status s = pending_.RenameAndKeep(target_); !s.ok()) return s;
  committed_ = true;
  return absl::OkStatus();
}

absl::Status WriteToStandardOutput(absl::string_view text) {
  if (std::fflush(stdout) != 0) {
    return absl::InternalError(
        absl::StrCat("standard output: cannot write: ", std::strerror(errno)));
  }
  absl::StatusOr<std::unique_ptr<OutputFile>> out = OutputFile::Open("-");
  if (!out.ok()) return out.status();
  if (absl::Status s = (*out)->Write(text); !s.ok()) return s;
  return (*out)->Commit();
}

}  // namespace perftk::base
