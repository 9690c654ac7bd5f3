#include "base/printable.h"

#include <cstdint>

#include "absl/strings/str_format.h"
#include "base/utf8.h"

namespace perftk::base {

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
      // C1 controls (U+0080-U+009F, C2 80-C2 9F) act on terminals as ESC
      // sequences do: escaped like the C0 ones.
      const bool c1_control =
          c == 0xc2 && i + 1 < text.size() && static_cast<uint8_t>(text[i + 1]) < 0xa0;
      if (size_t n = Utf8SequenceLength(text.substr(i)); n > 0 && !c1_control) {
        out.append(text.data() + i, n);
        i += n;
        continue;
      }
    }
    switch (c) {
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        out += absl::StrFormat("\\x%02x", c);
    }
    ++i;
  }
  return out;
}

}  // namespace perftk::base
