// libFuzzer target: any bytes as a profile text for merge-profiles (an
// AutoFDO or BOLT text made elsewhere). A text that is read is written back
// in its format and must read again to the same counts. Errors are fine;
// crashes, sanitizer reports, hangs and aborts are not.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "profile/autofdo_text.h"
#include "profile/bolt_text.h"
#include "profile/line_reader.h"
#include "profile/profile.h"
#include "profile/profile_file.h"

namespace {

using perftk::profile::Format;
using perftk::profile::LineReader;
using perftk::profile::Profile;

// The profile's text as perftk writes it; BOLT texts hold one binary.
std::string TextOf(const Profile& profile) {
  if (*profile.format() == Format::kAutoFdo) return perftk::profile::AutoFdoText(profile);
  std::string text;
  for (const auto& [key, counts] : profile.binaries()) text += BoltText(key, counts);
  return text;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  LineReader lines =
      LineReader::FromText("fuzz", std::string(reinterpret_cast<const char*>(data), size));
  Profile read;
  if (!AddProfileText(lines, read).ok() || !read.format().has_value()) return 0;
  if (*read.format() == Format::kBolt && read.binaries().size() != 1) return 0;
  LineReader again = LineReader::FromText("again", TextOf(read));
  Profile reread;
  if (!AddProfileText(again, reread).ok() || reread.binaries() != read.binaries()) {
    std::abort();  // perftk's own text did not read back to the same counts
  }
  return 0;
}
