#include "base/json.h"

#include <cstddef>
#include <cstdint>

#include "absl/strings/str_format.h"
#include "base/utf8.h"

namespace perftk::base {

std::string JsonString(absl::string_view text) {
  std::string out = "\"";
  out.reserve(text.size() + 2);
  for (size_t i = 0; i < text.size();) {
    const char c = text[i];
    const uint8_t u = static_cast<uint8_t>(c);
    if (u >= 0x80) {
      if (size_t n = Utf8SequenceLength(text.substr(i)); n > 0) {
        out.append(text.data() + i, n);
        i += n;
        continue;
      }
      absl::StrAppendFormat(&out, "\\u%04x", u);
    } else if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (u < 0x20 || u == 0x7f) {
      absl::StrAppendFormat(&out, "\\u%04x", u);
    } else {
      out += c;
    }
    ++i;
  }
  return out + "\"";
}

}  // namespace perftk::base
