// AutoFDO text (simpleperf inject --output autofdo; read by create_llvm_prof
// --profiler=text). Per binary, in this order:
//   N                    then N lines START-END:COUNT  (ranges, hex-hex:decimal)
//   M                    then M lines ADDRESS:COUNT    (address samples)
//   K                    then K lines FROM->TO:COUNT   (branches; TO 0: unknown)
//   // build_id: 0xID    (when known)
//   // PATH
//   (an empty line)
// Addresses are the ELF virtual address minus the first PT_LOAD's. Entries
// are sorted by address, binaries by path, then build id. create_llvm_prof
// reads only the first binary of a text.
#ifndef PERFTK_PROFILE_AUTOFDO_TEXT_H_
#define PERFTK_PROFILE_AUTOFDO_TEXT_H_

#include <string>

#include "absl/status/status.h"
#include "profile/line_reader.h"
#include "profile/profile.h"

namespace perftk::profile {

// Every binary of `profile`.
std::string AutoFdoText(const Profile& profile);
// One binary.
void AppendAutoFdoText(const BinaryKey& key, const BinaryCounts& counts, std::string& out);

// Adds every binary of the text `lines` reads to `into` (a profile of
// AutoFDO format, or empty). A binary the text names no path for has an
// empty path. Errors name the input and the line.
absl::Status ReadAutoFdoText(LineReader& lines, Profile& into);

}  // namespace perftk::profile

#endif  // PERFTK_PROFILE_AUTOFDO_TEXT_H_
