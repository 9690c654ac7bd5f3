// perftk merge-profiles: adds up AutoFDO or BOLT profile texts (made by
// perftk cs-etm-decode on other machines, or by earlier merges) into one.
#ifndef PERFTK_CLI_MERGE_PROFILES_COMMAND_H_
#define PERFTK_CLI_MERGE_PROFILES_COMMAND_H_

#include <string>
#include <vector>

#include "absl/status/status.h"

namespace CLI {
class App;
}

namespace perftk::cli {

struct MergeProfilesOptions {
  // Profile texts; "@FILE" stands for the paths FILE lists, one per line.
  std::vector<std::string> inputs;
  std::string output;  // "-" or empty: stdout
  std::string binary;  // a regex binaries' paths must match (AutoFDO)
  bool quiet = false;
};

absl::Status RunMergeProfiles(const MergeProfilesOptions& options);
void RegisterMergeProfilesCommand(CLI::App& app, absl::Status& outcome);

}  // namespace perftk::cli

#endif  // PERFTK_CLI_MERGE_PROFILES_COMMAND_H_
