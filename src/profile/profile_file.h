// Profile texts as inputs: which format a text is, and adding one to a sum.
#ifndef PERFTK_PROFILE_PROFILE_FILE_H_
#define PERFTK_PROFILE_PROFILE_FILE_H_

#include <string>

#include "absl/status/status.h"
#include "profile/line_reader.h"
#include "profile/profile.h"

namespace perftk::profile {

// Adds the text `lines` reads to `into`. Its format is told by its first
// line that is not empty: a number starts an AutoFDO text, F or B a BOLT
// text; an empty text adds nothing. A text of another format than `into`'s,
// or a BOLT text of another build than `into`'s (a BOLT text holds one
// binary), is an error naming both, and nothing is added.
absl::Status AddProfileText(LineReader& lines, Profile& into);

// The same for the file at `path` (a regular file or FIFO), read once,
// line by line: memory holds `into` and this one file's counts.
absl::Status AddProfileFile(const std::string& path, Profile& into);

}  // namespace perftk::profile

#endif  // PERFTK_PROFILE_PROFILE_FILE_H_
