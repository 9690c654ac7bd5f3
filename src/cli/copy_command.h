// perftk copy: the identity rewrite of a recording through perftk's reader
// and writer (native byte order, decompressed, file or pipe layout).
#ifndef PERFTK_CLI_COPY_COMMAND_H_
#define PERFTK_CLI_COPY_COMMAND_H_

#include <string>

#include "absl/status/status.h"
#include "cli/build_id_flags.h"

namespace CLI {
class App;
}

namespace perftk::cli {

struct CopyOptions {
  std::string input = "-";
  std::string output = "-";
  bool pipe = false;  // write the pipe layout even to a file
  BuildIdFlags build_ids;
  bool quiet = false;
};

absl::Status RunCopy(const CopyOptions& options);
void RegisterCopyCommand(CLI::App& app, absl::Status& outcome);

}  // namespace perftk::cli

#endif  // PERFTK_CLI_COPY_COMMAND_H_
