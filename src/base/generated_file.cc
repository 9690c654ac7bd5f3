#include "base/generated_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/system_error.h"
#include "base/write_all.h"

namespace perftk::base {

GeneratedFile::GeneratedFile(std::string path, int fd, PendingFile pending)
    : path_(std::move(path)), fd_(fd), pending_(std::move(pending)) {}

GeneratedFile::GeneratedFile(GeneratedFile&& other) noexcept
    : path_(std::move(other.path_)),
      fd_(std::exchange(other.fd_, -1)),
      staged_(other.staged_),
      pending_(std::move(other.pending_)) {}

GeneratedFile& GeneratedFile::operator=(GeneratedFile&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    path_ = std::move(other.path_);
    fd_ = std::exchange(other.fd_, -1);
    staged_ = other.staged_;
    pending_ = std::move(other.pending_);
  }
  return *this;
}

GeneratedFile::~GeneratedFile() {
  if (fd_ >= 0) close(fd_);
  // pending_, if still listed, removes the unfinished file.
}

absl::StatusOr<GeneratedFile> GeneratedFile::Create(const std::string& path) {
  int fd = -1;
  absl::StatusOr<PendingFile> created = PendingFile::CreateNew(path, &fd);
  if (created.ok()) return GeneratedFile(path, fd, std::move(*created));
  if (!absl::IsAlreadyExists(created.status())) return created.status();
  return CreateStaged(path);
}

absl::StatusOr<GeneratedFile> GeneratedFile::CreateStaged(const std::string& path) {
  struct stat existing;
  if (lstat(path.c_str(), &existing) == 0 && S_ISDIR(existing.st_mode)) {
    return absl::PermissionDeniedError(
        absl::StrCat(path, ": cannot create: ", std::strerror(EISDIR)));
  }
  int fd = -1;
  absl::StatusOr<PendingFile> temp =
      PendingFile::CreateNew(absl::StrCat(path, ".tmp.", getpid()), &fd);
  if (!temp.ok()) {
    return absl::PermissionDeniedError(
        absl::StrCat(path, ": cannot create a file beside it: ", temp.status().message()));
  }
  GeneratedFile file(path, fd, std::move(*temp));
  file.staged_ = true;
  return file;
}

absl::Status GeneratedFile::Error(const char* what, int error) const {
  return absl::InternalError(absl::StrCat(path_, ": ", what, ": ", SystemErrorText(error)));
}

absl::Status GeneratedFile::Write(std::span<const std::byte> bytes) {
  if (int error = WriteAll(fd_, bytes); error != 0) return Error("write failed", error);
  return absl::OkStatus();
}

absl::Status GeneratedFile::WriteAt(std::span<const std::byte> bytes, uint64_t offset) {
  if (int error = WriteAllAt(fd_, bytes, offset); error != 0) return Error("write failed", error);
  return absl::OkStatus();
}

absl::Status GeneratedFile::Sync() {
  if (fsync(fd_) != 0) return Error("sync failed", errno);
  return absl::OkStatus();
}

absl::StatusOr<struct stat> GeneratedFile::Close() {
  struct stat st;
  if (fstat(fd_, &st) != 0) return Error("fstat failed", errno);
  int fd = std::exchange(fd_, -1);
  if (close(fd) != 0) return Error("close failed", errno);
  if (staged_) {
    if (absl::Status s = pending_.RenameOver(path_); !s.ok()) return s;
  }
  return st;
}

}  // namespace perftk::base
