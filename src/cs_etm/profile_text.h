// The text cs-etm-decode writes for --format=autofdo, bolt or llvm-sample from a decoded
// profile (one recording's, or the sum of several): AutoFDO text of every
// binary or of the one --dso names; BOLT text of the one binary the trace
// ran in, or of the one --dso names (a BOLT text holds one binary).
#ifndef PERFTK_CS_ETM_PROFILE_TEXT_H_
#define PERFTK_CS_ETM_PROFILE_TEXT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "profile/profile.h"

namespace perftk::cs_etm {

struct ProfileText {
  std::string text;
  // BOLT: the recorded path of the binary written; empty when the trace
  // ran in none (then the text is empty).
  std::string binary;
  // What the writer left out and why (llvm-sample: DWARF ranges dropped).
  std::vector<std::string> warnings;
};

// `dso`: a recorded path or file name; empty for the default above. Errors
// name the binaries the trace ran in.
absl::StatusOr<ProfileText> WriteProfileText(const profile::Profile& profile,
                                             profile::Format format, const std::string& dso);

// --format=llvm-sample: the LLVM text sample profile (profile/llvm_sample.h)
// of the binary `dso` names, from `profile`'s AutoFDO counts and the DWARF of
// the binary's file (under `symfs` as the decode finds it: symfs/<recorded
// path>, then symfs/<file name>; the recorded path without symfs). `binary`
// is the file read. An error when no such binary ran or its file has no
// DWARF functions.
absl::StatusOr<ProfileText> WriteLlvmSampleText(const profile::Profile& profile,
                                                const std::string& dso, const std::string& symfs);

}  // namespace perftk::cs_etm

#endif  // PERFTK_CS_ETM_PROFILE_TEXT_H_
