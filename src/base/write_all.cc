#include "base/write_all.h"

#include <unistd.h>

#include <cerrno>

namespace perftk::base {

int WriteAll(int fd, std::span<const std::byte> bytes) {
  while (!bytes.empty()) {
    ssize_t n = write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    bytes = bytes.subspan(static_cast<size_t>(n));
  }
  return 0;
}

int WriteAllAt(int fd, std::span<const std::byte> bytes, uint64_t offset) {
  while (!bytes.empty()) {
    ssize_t n = pwrite(fd, bytes.data(), bytes.size(), static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    bytes = bytes.subspan(static_cast<size_t>(n));
    offset += static_cast<uint64_t>(n);
  }
  return 0;
}

}  // namespace perftk::base
