// Writing a whole buffer to a descriptor.
#ifndef PERFTK_BASE_WRITE_ALL_H_
#define PERFTK_BASE_WRITE_ALL_H_

#include <cstddef>
#include <cstdint>
#include <span>

namespace perftk::base {

// Writes all of `bytes` to `fd`, going on after short writes and EINTR.
// Returns 0, or the errno of the write that failed.
int WriteAll(int fd, std::span<const std::byte> bytes);
// The same at file offset `offset` (pwrite): the descriptor's own offset
// stays where it was.
int WriteAllAt(int fd, std::span<const std::byte> bytes, uint64_t offset);

}  // namespace perftk::base

#endif  // PERFTK_BASE_WRITE_ALL_H_
