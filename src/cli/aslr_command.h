// perftk aslr: hide the address-space layout of a recording, keep its symbolization.
#ifndef PERFTK_CLI_ASLR_COMMAND_H_
#define PERFTK_CLI_ASLR_COMMAND_H_

#include <string>

#include "absl/status/status.h"
#include "cli/build_id_flags.h"

namespace CLI {
class App;
}

namespace perftk::cli {

struct AslrOptions {
  std::string input = "-";
  std::string output = "-";
  bool pipe = false;
  bool strip_cmdline = false;
  bool strip_hostname = false;
  bool no_unwind = false;
  BuildIdFlags build_ids;  // added by default when the input has none
  bool quiet = false;
};

absl::Status RunAslr(const AslrOptions& options);
void RegisterAslrCommand(CLI::App& app, absl::Status& outcome);

}  // namespace perftk::cli

#endif  // PERFTK_CLI_ASLR_COMMAND_H_
