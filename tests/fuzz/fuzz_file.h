// The fuzzer's input as a file, for code that opens or maps a path: the
// bytes go into one memfd, reused by every run of the process.
#ifndef PERFTK_TESTS_FUZZ_FUZZ_FILE_H_
#define PERFTK_TESTS_FUZZ_FUZZ_FILE_H_

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace perftk::fuzz {

// "/proc/self/fd/N" holding exactly `data`; "" when it cannot be written.
inline std::string AsFile(const uint8_t* data, size_t size) {
  static const int fd = memfd_create("perftk-fuzz-input", 0);
  if (fd < 0 || ftruncate(fd, 0) != 0) return "";
  size_t done = 0;
  while (done < size) {
    const ssize_t n = pwrite(fd, data + done, size - done, static_cast<off_t>(done));
    if (n <= 0) return "";
    done += static_cast<size_t>(n);
  }
  return "/proc/self/fd/" + std::to_string(fd);
}

}  // namespace perftk::fuzz

#endif  // PERFTK_TESTS_FUZZ_FUZZ_FILE_H_
