// The samples of one trace block in the output format (sample_output.h),
// in the order they came, until the block is written: in memory up to a
// bound, the rest in a temporary file.
//
// A block's samples wait until every block before it is written, and a
// block can be one AUX record of hundreds of MB: `--itrace=i10l64` on a
// 780 KB block made 250 MB of records. Past `max_held` bytes, the held
// samples go to an unlinked file in $TMPDIR (else /tmp), so memory stays
// bounded whatever a block holds. The file has no name and goes with the
// object, or with the process.
//
// Samples are added whole (a perf record, a script line) and read back in
// pieces of whole samples, each at most max_held bytes and one sample:
// memory is about max_held while samples are added, and as much again
// while they are read back. Not thread-safe: one lane fills it, then the
// writer reads it.
#ifndef PERFTK_CS_ETM_ENCODED_SAMPLES_H_
#define PERFTK_CS_ETM_ENCODED_SAMPLES_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace perftk::cs_etm {

namespace encoded_samples_internal {
// An unlinked file in `dir`, open to read and write: O_TMPFILE, or (where
// the file system has none, or `tmpfile` is false) a name made and
// removed at once. -1, with errno, when it cannot be made.
int OpenUnlinked(const std::string& dir, bool tmpfile = true);
}  // namespace encoded_samples_internal

class EncodedSamples {
 public:
  static constexpr size_t kDefaultMaxHeld = size_t{8} << 20;
  // Room for the sample that passes the bound (a perf record is at most
  // 64 KB; a script line with 64 branches about 2 KB).
  static constexpr size_t kSlack = size_t{64} << 10;

  explicit EncodedSamples(size_t max_held = kDefaultMaxHeld) : max_held_(max_held) {}
  ~EncodedSamples();
  EncodedSamples(const EncodedSamples&) = delete;
  EncodedSamples& operator=(const EncodedSamples&) = delete;

  // Adds one sample: `make` appends its bytes to the string it is given.
  // Fails (and holds nothing more) when the temporary file cannot be
  // created or written.
  template <typename Make>
  absl::Status Add(Make make) {
    if (!failed_.ok()) return failed_;
    // Past half the bound, room for the rest at once: no doubling past it.
    if (held_.size() >= max_held_ / 2 && held_.capacity() < max_held_ + kSlack) {
      held_.reserve(max_held_ + kSlack);
    }
    make(held_);
    ++count_;
    return held_.size() > max_held_ ? Spill() : absl::OkStatus();
  }

  // Hands every sample to `piece`, in order, in pieces of whole samples;
  // `piece`'s error, or the temporary file's.
  absl::Status ForEachPiece(absl::FunctionRef<absl::Status(absl::string_view)> piece) const;

  // Samples added, and their bytes.
  uint64_t count() const { return count_; }
  uint64_t bytes() const { return spilled_bytes_ + held_.size(); }
  bool empty() const { return count_ == 0; }
  // Bytes in the temporary file.
  uint64_t spilled_bytes() const { return spilled_bytes_; }
  // The temporary file, -1 before there is one (for tests).
  int file_for_testing() const { return fd_; }

 private:
  // Moves the held bytes to the end of the temporary file, made at the
  // first call.
  absl::Status Spill();

  const size_t max_held_;
  std::string held_;
  uint64_t count_ = 0;
  int fd_ = -1;
  // The lengths of the pieces in the file, in order.
  std::vector<uint64_t> spilled_;
  uint64_t spilled_bytes_ = 0;
  absl::Status failed_;
};

}  // namespace perftk::cs_etm

#endif  // PERFTK_CS_ETM_ENCODED_SAMPLES_H_
