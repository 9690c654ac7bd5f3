#include "cli/uprobe_offset_command.h"

#include "CLI/CLI.hpp"
#include "cli/not_built_yet.h"

namespace perftk::cli {

absl::Status RunUprobeOffset(const UprobeOffsetOptions&) {
  return NotBuiltYet("perftk uprobe-offset", 6);
}

void RegisterUprobeOffsetCommand(CLI::App& app, absl::Status& outcome) {
  auto options = std::make_shared<UprobeOffsetOptions>();
  CLI::App* sub = app.add_subcommand(
      "uprobe-offset", "Print the file offset where a uprobe for a named function goes.");
  sub->add_option("binary", options->binary, "ELF file")->required();
  sub->add_option("functions", options->functions, "Function names")->required();
  sub->callback([options, &outcome] { outcome = RunUprobeOffset(*options); });
}

}  // namespace perftk::cli
