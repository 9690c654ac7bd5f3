#include "perf/input.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/creation_mode.h"
#include "base/input_file.h"
#include "base/interrupt.h"

namespace perftk::perf {

absl::StatusOr<std::unique_ptr<Input>> Input::Open(const std::string& path) {
  std::unique_ptr<Input> input(new Input());
  if (path == "-") {
    input->name_ = "<stdin>";
    input->fd_ = STDIN_FILENO;
  } else {
    input->name_ = path;
    absl::StatusOr<int> fd = base::OpenInputFile(path, "recording", base::InputKind::kFileOrStream);
    if (!fd.ok()) return fd.status();
    input->fd_ = *fd;
    input->owns_fd_ = true;
  }
  struct stat st;
  if (fstat(input->fd_, &st) != 0) {
    return absl::InternalError(absl::StrCat(input->name_, ": cannot stat: ", strerror(errno)));
  }
  if (S_ISDIR(st.st_mode)) {
    return absl::InvalidArgumentError(absl::StrCat(input->name_, ": is a directory"));
  }
  // What is made of the recording is no more readable than it (a pipe is 0600).
  base::LimitCreationModeTo(st.st_mode);
  if (S_ISFIFO(st.st_mode)) {
    // A pipe holds 64 KB by default: a 256 KB AUX buffer on its way from
    // `perf record -o -` would wake the writer and the reader four times
    // each. Asked for 1 MB (pipe-max-size, which any user may ask for);
    // refused, the pipe stays as it was.
    (void)fcntl(input->fd_, F_SETPIPE_SZ, kPipeSize);
  }
  if (S_ISREG(st.st_mode)) {
    if (st.st_size == 0) {
      input->mapped_size_known_ = true;
      return input;
    }
    void* base = mmap(nullptr, st.st_size, PROT_READ, MAP_PRIVATE, input->fd_, 0);
    if (base == MAP_FAILED) {
      return absl::InternalError(absl::StrCat(input->name_, ": cannot map: ", strerror(errno)));
    }
    madvise(base, st.st_size, MADV_SEQUENTIAL);
    input->map_base_ = base;
    input->map_length_ = st.st_size;
    input->map_token_ = base::NoteMappedInput(base, st.st_size, input->name_);
    input->mapped_ = base::Bytes(static_cast<const std::byte*>(base), st.st_size);
  }
  return input;
}

std::unique_ptr<Input> Input::FromMemory(base::Bytes bytes, std::string name) {
  std::unique_ptr<Input> input(new Input());
  input->name_ = std::move(name);
  input->mapped_ = bytes;
  input->mapped_size_known_ = true;
  return input;
}

void Input::ReleaseBefore(uint64_t offset) {
  if (map_base_ == nullptr) return;
  const uint64_t page = sysconf(_SC_PAGESIZE);
  uint64_t end = std::min<uint64_t>(offset, map_length_) / page * page;
  if (end <= released_) return;
  const uint64_t begin =
      released_ > kReleasedAgain ? (released_ - kReleasedAgain) / page * page : 0;
  madvise(static_cast<char*>(map_base_) + begin, end - begin, MADV_DONTNEED);
  released_ = end;
}

Input::~Input() {
  if (map_base_ != nullptr) {
    base::ForgetMappedInput(map_token_);
    munmap(map_base_, map_length_);
  }
  if (owns_fd_) close(fd_);
}

absl::StatusOr<base::Bytes> Input::Read(uint64_t n, std::vector<std::byte>& scratch) {
  if (is_mapped()) {
    if (position_ >= mapped_.size()) return base::Bytes();
    uint64_t take = std::min<uint64_t>(n, mapped_.size() - position_);
    base::Bytes span = mapped_.subspan(position_, take);
    position_ += take;
    return span;
  }
  // The buffer grows as bytes arrive, so a stream that announces more than
  // it holds costs memory for what it holds, not for what it announced.
  constexpr uint64_t kFirstChunk = 1u << 20;
  uint64_t room = std::min(n, kFirstChunk);
  if (scratch.size() < room) scratch.resize(room);
  uint64_t got = 0;
  while (got < n) {
    if (got == room) {
      room = std::min(n, 2 * room);
      if (scratch.size() < room) scratch.resize(room);
    }
    ssize_t r = read(fd_, scratch.data() + got, room - got);
    if (r == 0) break;
    if (r < 0) {
      if (errno == EINTR) continue;
      return absl::DataLossError(absl::StrFormat("%s: read error at offset %#x: %s", name_,
                                                 position_ + got, strerror(errno)));
    }
    got += r;
  }
  position_ += got;
  return base::Bytes(scratch.data(), got);
}

}  // namespace perftk::perf
