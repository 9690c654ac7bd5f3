#include "cli/aslr_command.h"

#include "CLI/CLI.hpp"
#include "cli/not_built_yet.h"

namespace perftk::cli {

absl::Status RunAslr(const AslrOptions&) { return NotBuiltYet("perftk aslr", 3); }

void RegisterAslrCommand(CLI::App& app, absl::Status& outcome) {
  auto options = std::make_shared<AslrOptions>();
  CLI::App* sub = app.add_subcommand(
      "aslr",
      "Rewrite a recording so it can be shared without leaking the address-space layout:\n"
      "every user and kernel address is remapped consistently per mapping, so\n"
      "`perf report` shows the same symbols; register dumps, user stacks, raw\n"
      "tracepoint payloads, AUX data and TEXT_POKE are removed.");
  sub->add_option("-i,--input", options->input, "Input perf.data ('-' for stdin)")
      ->capture_default_str();
  sub->add_option("-o,--output", options->output, "Output perf.data ('-' for stdout)")
      ->required();
  sub->callback([options, &outcome] { outcome = RunAslr(*options); });
}

}  // namespace perftk::cli
