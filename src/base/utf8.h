// UTF-8 as text printed from files must be: one check, shared by the
// escapers (json.h, printable.h).
#ifndef PERFTK_BASE_UTF8_H_
#define PERFTK_BASE_UTF8_H_

#include <cstddef>

#include "absl/strings/string_view.h"

namespace perftk::base {

// The length (2 to 4) of the valid multi-byte UTF-8 sequence at the start of
// `text`, 0 if there is none there (ASCII, a stray continuation byte, a
// sequence cut short, overlong, a surrogate or past U+10FFFF).
size_t Utf8SequenceLength(absl::string_view text);

}  // namespace perftk::base

#endif  // PERFTK_BASE_UTF8_H_
