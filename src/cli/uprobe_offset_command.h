// perftk uprobe-offset: the file offset where a uprobe for a named function goes.
#ifndef PERFTK_CLI_UPROBE_OFFSET_COMMAND_H_
#define PERFTK_CLI_UPROBE_OFFSET_COMMAND_H_

#include <string>
#include <vector>

#include "absl/status/status.h"

namespace CLI {
class App;
}

namespace perftk::cli {

struct UprobeOffsetOptions {
  std::string binary;
  std::vector<std::string> functions;
};

absl::Status RunUprobeOffset(const UprobeOffsetOptions& options);
void RegisterUprobeOffsetCommand(CLI::App& app, absl::Status& outcome);

}  // namespace perftk::cli

#endif  // PERFTK_CLI_UPROBE_OFFSET_COMMAND_H_
