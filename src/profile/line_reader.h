// Reads a text input one line at a time through a fixed buffer, so that a
// profile of any size is read in bounded memory. Lines end with '\n' (a
// last line may lack it); a line longer than kMaxLine is an error.
#ifndef PERFTK_PROFILE_LINE_READER_H_
#define PERFTK_PROFILE_LINE_READER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace perftk::profile {

class LineReader {
 public:
  static constexpr size_t kMaxLine = 1 << 16;

  // Opens `path` as an input (base/input_file.h: a regular file or a FIFO,
  // never a claimed output). `role` names it in messages.
  static absl::StatusOr<LineReader> Open(const std::string& path, absl::string_view role);
  // Reads `text` (for tests).
  static LineReader FromText(std::string name, std::string text);

  LineReader(LineReader&& other) noexcept;
  LineReader& operator=(LineReader&& other) = delete;
  ~LineReader();

  // The next line without its '\n', valid until the next call; nullopt at
  // the end.
  absl::StatusOr<std::optional<absl::string_view>> Next();
  // Makes the line Next returned last the next one again (once, before
  // any other call).
  void Unread();
  // 1-based number of the line Next returned last.
  uint64_t line_number() const { return line_number_; }
  const std::string& name() const { return name_; }
  // An error naming the input and the line: "NAME: line N: what".
  absl::Status Error(absl::string_view what) const;

 private:
  LineReader(std::string name, int fd) : name_(std::move(name)), fd_(fd) {}

  std::string name_;
  int fd_ = -1;  // -1: all of the text is in buffer_
  std::vector<char> buffer_;
  size_t begin_ = 0;  // unread bytes are buffer_[begin_, end_)
  size_t end_ = 0;
  size_t last_begin_ = 0;  // where the line Next returned last starts
  bool eof_ = false;
  uint64_t line_number_ = 0;
};

}  // namespace perftk::profile

#endif  // PERFTK_PROFILE_LINE_READER_H_
