// Decompresses the zstd payloads of PERF_RECORD_COMPRESSED records
// (`perf record -z`). One stream per recording: a record's frame may end
// inside a perf record, which continues in the next compressed record.
#ifndef PERFTK_PERF_DECOMPRESSOR_H_
#define PERFTK_PERF_DECOMPRESSOR_H_

#include <vector>

#include "absl/status/status.h"
#include "base/bytes.h"

namespace perftk::perf {

class Decompressor {
 public:
  Decompressor();
  ~Decompressor();
  Decompressor(const Decompressor&) = delete;
  Decompressor& operator=(const Decompressor&) = delete;

  // Appends the decompressed bytes of `compressed` to `out`. Fails on corrupt
  // data or when the output would exceed `limit` bytes.
  absl::Status Decompress(base::Bytes compressed, std::vector<std::byte>& out, size_t limit);

 private:
  void* stream_;
};

}  // namespace perftk::perf

#endif  // PERFTK_PERF_DECOMPRESSOR_H_
