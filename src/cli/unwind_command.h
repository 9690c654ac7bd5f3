// perftk unwind: dwarf stack copies of a recording into plain call chains.
#ifndef PERFTK_CLI_UNWIND_COMMAND_H_
#define PERFTK_CLI_UNWIND_COMMAND_H_

#include <string>

#include "absl/status/status.h"
#include "cli/build_id_flags.h"

namespace CLI {
class App;
}

namespace perftk::cli {

struct UnwindOptions {
  std::string input = "-";
  std::string output = "-";
  std::string symfs;
  bool keep_stack = false;
  bool pipe = false;
  bool quiet = false;
  bool no_take_over = false;
  int jobs = 0;  // 0: the default (cli/jobs.h)
  BuildIdFlags build_ids;
};

absl::Status RunUnwind(const UnwindOptions& options);
void RegisterUnwindCommand(CLI::App& app, absl::Status& outcome);

}  // namespace perftk::cli

#endif  // PERFTK_CLI_UNWIND_COMMAND_H_
