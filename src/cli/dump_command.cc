#include "cli/dump_command.h"

#include "CLI/CLI.hpp"
#include "cli/not_built_yet.h"

namespace perftk::cli {

absl::Status RunDump(const DumpOptions&) { return NotBuiltYet("perftk dump", 2); }

void RegisterDumpCommand(CLI::App& app, absl::Status& outcome) {
  auto options = std::make_shared<DumpOptions>();
  CLI::App* sub = app.add_subcommand("dump", "dump");
  sub->add_option("-i,--input", options->input, "Input perf.data")->capture_default_str();
  sub->callback([options, &outcome] { outcome = RunDump(*options); });
}

}  // namespace perftk::cli
