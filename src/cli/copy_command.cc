#include "cli/copy_command.h"

#include "CLI/CLI.hpp"
#include "cli/not_built_yet.h"

namespace perftk::cli {

absl::Status RunCopy(const CopyOptions&) { return NotBuiltYet("perftk copy", 2); }

void RegisterCopyCommand(CLI::App& app, absl::Status& outcome) {
  auto options = std::make_shared<CopyOptions>();
  CLI::App* sub = app.add_subcommand("copy", "copy");
  sub->add_option("-i,--input", options->input, "Input perf.data")->capture_default_str();
  sub->callback([options, &outcome] { outcome = RunCopy(*options); });
}

}  // namespace perftk::cli
