// Many recordings into one profile (cs-etm-decode --format=autofdo or bolt
// with several inputs). Each recording is decoded on its own, exactly as
// with one input; its binaries that `keep` refuses are dropped, and its
// profile is added to the sum (profile/profile.h: per path and build id,
// saturating). The sum is therefore the merge of the recordings' own
// profiles, whatever order they finish in.
//
// With options.jobs J and N recordings, min(J, N) recordings decode at once,
// each on J / min(J, N) threads; memory holds the sum and the recordings
// being decoded, never all of them.
#ifndef PERFTK_CS_ETM_RECORDINGS_H_
#define PERFTK_CS_ETM_RECORDINGS_H_

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "cs_etm/decode_tool.h"
#include "profile/profile.h"

namespace perftk::cs_etm {

struct RecordingsDecode {
  absl::Status status;  // the first failed recording's error, in input order
  profile::Profile profile;
  DecodeStats stats;  // summed
  // In input order; with several inputs each names its recording.
  std::vector<std::string> warnings;
  // The paths of the binaries `keep` dropped, sorted, each once.
  std::set<std::string> dropped;
};

// `options.format` is kAutoFdo or kBolt; options.dso is not applied here.
RecordingsDecode DecodeRecordings(const std::vector<std::string>& inputs,
                                  const DecodeOptions& options,
                                  const std::function<bool(const profile::BinaryKey&)>& keep);

}  // namespace perftk::cs_etm

#endif  // PERFTK_CS_ETM_RECORDINGS_H_
