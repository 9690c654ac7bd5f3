#include "cs_etm/encoded_samples.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <span>

#include "absl/strings/str_cat.h"
#include "base/system_error.h"
#include "base/write_all.h"

namespace perftk::cs_etm {
namespace {

std::string TemporaryDirectory() {
  const char* dir = std::getenv("TMPDIR");
  return dir != nullptr && *dir != '\0' ? dir : "/tmp";
}

absl::Status FileError(const char* what, int error) {
  const char* tmpdir = std::getenv("TMPDIR");
  const bool set = tmpdir != nullptr && *tmpdir != '\0';
  return absl::UnavailableError(
      absl::StrCat("cannot ", what, " the samples of a trace block in a temporary file in ",
                   TemporaryDirectory(),
                   set ? " (TMPDIR): " : " (TMPDIR is not set): ", base::SystemErrorText(error)));
}

}  // namespace

namespace encoded_samples_internal {

int OpenUnlinked(const std::string& dir, bool tmpfile) {
  if (tmpfile) {
    const int fd = open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)) return fd;
  }
  std::string name = dir + "/perftk-samples.XXXXXX";
  const int fd = mkostemp(name.data(), O_CLOEXEC);
  if (fd >= 0) unlink(name.c_str());
  return fd;
}

}  // namespace encoded_samples_internal

EncodedSamples::~EncodedSamples() {
  if (fd_ >= 0) close(fd_);
}

absl::Status EncodedSamples::Spill() {
  if (fd_ < 0) {
    fd_ = encoded_samples_internal::OpenUnlinked(TemporaryDirectory());
    if (fd_ < 0) return failed_ = FileError("create", errno);
  }
  const int error = base::WriteAllAt(fd_, std::as_bytes(std::span(held_)), spilled_bytes_);
  if (error != 0) return failed_ = FileError("write", error);
  spilled_.push_back(held_.size());
  spilled_bytes_ += held_.size();
  held_.clear();
  return absl::OkStatus();
}

absl::Status EncodedSamples::ForEachPiece(
    absl::FunctionRef<absl::Status(absl::string_view)> piece) const {
  if (!failed_.ok()) return failed_;
  std::string buffer;
  uint64_t offset = 0;
  for (const uint64_t length : spilled_) {
    buffer.resize(length);
    for (uint64_t got = 0; got < length;) {
      const ssize_t n =
          pread(fd_, buffer.data() + got, length - got, static_cast<off_t>(offset + got));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        const int error = n < 0 ? errno : EIO;
        return FileError("read back", error);
      }
      got += static_cast<uint64_t>(n);
    }
    if (absl::Status s = piece(buffer); !s.ok()) return s;
    offset += length;
  }
  return held_.empty() ? absl::OkStatus() : piece(held_);
}

}  // namespace perftk::cs_etm
