#include "profile/line_reader.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "base/input_file.h"

namespace perftk::profile {

absl::StatusOr<LineReader> LineReader::Open(const std::string& path, absl::string_view role) {
  absl::StatusOr<int> fd = base::OpenInputFile(path, role, base::InputKind::kFileOrStream);
  if (!fd.ok()) return fd.status();
  LineReader reader(path, *fd);
  reader.buffer_.resize(2 * kMaxLine);
  return reader;
}

LineReader LineReader::FromText(std::string name, std::string text) {
  LineReader reader(std::move(name), -1);
  reader.buffer_.assign(text.begin(), text.end());
  reader.end_ = reader.buffer_.size();
  reader.eof_ = true;
  return reader;
}

LineReader::LineReader(LineReader&& other) noexcept
    : name_(std::move(other.name_)),
      fd_(other.fd_),
      buffer_(std::move(other.buffer_)),
      begin_(other.begin_),
      end_(other.end_),
      last_begin_(other.last_begin_),
      eof_(other.eof_),
      line_number_(other.line_number_) {
  other.fd_ = -1;
}

LineReader::~LineReader() {
  if (fd_ >= 0) close(fd_);
}

absl::Status LineReader::Error(absl::string_view what) const {
  return absl::InvalidArgumentError(absl::StrCat(name_, ": line ", line_number_, ": ", what));
}

void LineReader::Unread() {
  begin_ = last_begin_;
  --line_number_;
}

absl::StatusOr<std::optional<absl::string_view>> LineReader::Next() {
  size_t scanned = begin_;
  while (true) {
    const char* start = buffer_.data() + begin_;
    const void* newline =
        end_ > scanned ? std::memchr(buffer_.data() + scanned, '\n', end_ - scanned) : nullptr;
    if (newline != nullptr || (eof_ && end_ > begin_)) {
      const size_t length = newline != nullptr
                                ? static_cast<size_t>(static_cast<const char*>(newline) - start)
                                : end_ - begin_;
      last_begin_ = begin_;
      begin_ += length + (newline != nullptr ? 1 : 0);
      ++line_number_;
      if (length > kMaxLine) {
        return Error(absl::StrCat("longer than ", kMaxLine, " bytes"));
      }
      return std::optional<absl::string_view>(absl::string_view(start, length));
    }
    if (eof_) return std::optional<absl::string_view>();
    if (end_ - begin_ > kMaxLine) {
      ++line_number_;
      return Error(absl::StrCat("longer than ", kMaxLine, " bytes"));
    }
    // Move what is left of the current line to the front and read more.
    if (end_ > begin_) std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
    scanned = end_;
    ssize_t n;
    do {
      n = read(fd_, buffer_.data() + end_, buffer_.size() - end_);
    } while (n < 0 && errno == EINTR);
    if (n < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(name_, ": cannot read after line ", line_number_, ": ", strerror(errno)));
    }
    if (n == 0) eof_ = true;
    end_ += static_cast<size_t>(n);
  }
}

}  // namespace perftk::profile
