#ifndef PERFTK_CLI_DUMP_COMMAND_H_
#define PERFTK_CLI_DUMP_COMMAND_H_

#include <string>

#include "absl/status/status.h"

namespace CLI {
class App;
}

namespace perftk::cli {

struct DumpOptions {
  std::string input = "perf.data";
  std::string output;
};

absl::Status RunDump(const DumpOptions& options);
void RegisterDumpCommand(CLI::App& app, absl::Status& outcome);

}  // namespace perftk::cli

#endif  // PERFTK_CLI_DUMP_COMMAND_H_
