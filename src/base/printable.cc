#include "base/printable.h"

#include <cstdint>

#include "absl/strings/str_format.h"

namespace perftk::base {
namespace {

// The length of the valid UTF-8 sequence of two to four bytes at the start
// of `text`, or 0.
size_t Utf8SequenceLength(absl::string_view text) {
  const auto byte = [&text](size_t i) { return static_cast<uint8_t>(text[i]); };
  const uint8_t lead = byte(0);
  size_t length = 0;
  uint32_t code = 0;
  if (lead >= 0xc2 && lead <= 0xdf) {
    length = 2;
    code = lead & 0x1f;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3;
    code = lead & 0x0f;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4;
    code = lead & 0x07;
  } else {
    return 0;
  }
  if (text.size() < length) return 0;
  for (size_t i = 1; i < length; ++i) {
    if ((byte(i) & 0xc0) != 0x80) return 0;
    code = (code << 6) | (byte(i) & 0x3f);
  }
  const bool overlong = (length == 3 && code < 0x800) || (length == 4 && code < 0x10000);
  const bool surrogate = code >= 0xd800 && code <= 0xdfff;
  // C1 controls (U+0080-U+009F) act on terminals as the ESC sequences do.
  const bool c1_control = code >= 0x80 && code <= 0x9f;
  if (overlong || surrogate || c1_control || code > 0x10ffff) return 0;
  return length;
}

}  // namespace

std::string Printable(absl::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<uint8_t>(text[i]);
    if (c >= 0x20 && c < 0x7f) {
      if (c == '\\') out += '\\';
      out += static_cast<char>(c);
      ++i;
      continue;
    }
    if (c >= 0x80) {
      if (size_t n = Utf8SequenceLength(text.substr(i)); n > 0) {
        out.append(text.data() + i, n);
        i += n;
        continue;
      }
    }
    switch (c) {
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default: out += absl::StrFormat("\\x%02x", c);
    }
    ++i;
  }
  return out;
}

}  // namespace perftk::base
