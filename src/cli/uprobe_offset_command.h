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
  std::vector<int> string_arguments;  // USDT arguments read as C strings (from 1)
  std::string format = "hex";         // "hex", "uprobe-events" or "json"
  bool list = false;
  bool list_usdt = false;
  bool return_probe = false;
  bool all = false;
  bool ifunc_selector = false;
  bool in_library = false;
  std::string group = "perftk";
  std::string debug_dir = "/usr/lib/debug";
};

// Writes the answer to stdout and caveats to stderr; nothing is written to
// stdout unless every name resolved.
absl::Status RunUprobeOffset(const UprobeOffsetOptions& options);
void RegisterUprobeOffsetCommand(CLI::App& app, absl::Status& outcome);

}  // namespace perftk::cli

#endif  // PERFTK_CLI_UPROBE_OFFSET_COMMAND_H_
