// Where the bytes of a recording come from: a regular file mapped whole
// (random access, no copies) or a stream (pipe, stdin) read in order.
#ifndef PERFTK_PERF_INPUT_H_
#define PERFTK_PERF_INPUT_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "base/bytes.h"

namespace perftk::perf {

class Input {
 public:
  // "-" is standard input. A regular file is mapped; anything else streams.
  static absl::StatusOr<std::unique_ptr<Input>> Open(const std::string& path);
  // An in-memory input (tests, fuzzing); `bytes` must outlive the Input.
  static std::unique_ptr<Input> FromMemory(base::Bytes bytes, std::string name);
  ~Input();

  const std::string& name() const { return name_; }
  // True when the whole input is addressable (mapped file or memory).
  bool is_mapped() const { return mapped_.data() != nullptr || mapped_size_known_; }
  // Whole contents; only when is_mapped().
  base::Bytes mapped() const { return mapped_; }

  // Sequential reading from the current position. Returns up to n bytes:
  // fewer only at end of input. The span points into the mapping, or into
  // `scratch` for streams, and stays valid until scratch is next used.
  absl::StatusOr<base::Bytes> Read(uint64_t n, std::vector<std::byte>& scratch);
  // Moves the sequential position (mapped inputs only).
  void Seek(uint64_t offset) { position_ = offset; }
  // Tells the input that bytes before `offset` will mostly not be read
  // again, so a mapped file's pages there can leave memory (keeps RSS
  // independent of the file's size when reading it once, front to back).
  // Views of them stay valid: a later read brings the file's bytes back.
  // Each call releases again the kReleasedAgain bytes before what the last
  // call released, so the pages that views read a little behind brought
  // back (records queued for time order, samples waiting to be unwound)
  // leave memory too.
  void ReleaseBefore(uint64_t offset);
  static constexpr uint64_t kReleasedAgain = 32u << 20;
  uint64_t position() const { return position_; }
  // What a pipe given as input is asked to hold (F_SETPIPE_SZ).
  static constexpr int kPipeSize = 1 << 20;

 private:
  Input() = default;

  std::string name_;
  int fd_ = -1;
  bool owns_fd_ = false;
  void* map_base_ = nullptr;
  size_t map_length_ = 0;
  size_t map_token_ = 0;  // for a SIGBUS message (base/interrupt.h)
  base::Bytes mapped_;
  bool mapped_size_known_ = false;  // an empty mapped input
  uint64_t position_ = 0;
  uint64_t released_ = 0;
};

}  // namespace perftk::perf

#endif  // PERFTK_PERF_INPUT_H_
