#include "cli/jit_command.h"

#include "CLI/CLI.hpp"
#include "cli/not_built_yet.h"

namespace perftk::cli {

absl::Status RunJit(const JitOptions&) { return NotBuiltYet("perftk jit", 4); }

void RegisterJitCommand(CLI::App& app, absl::Status& outcome) {
  auto options = std::make_shared<JitOptions>();
  CLI::App* sub = app.add_subcommand(
      "jit",
      "Turn each process's jit-<pid>.dump into ELF files with symbols and inject\n"
      "MMAP2 records for them (what `perf inject --jit` does); the //anon mmaps of\n"
      "processes that have a jitdump are dropped. Record with `perf record -k 1`.");
  sub->add_option("-i,--input", options->input, "Input perf.data ('-' for stdin)")
      ->capture_default_str();
  sub->add_option("-o,--output", options->output, "Output perf.data ('-' for stdout)")
      ->required();
  sub->callback([options, &outcome] { outcome = RunJit(*options); });
}

}  // namespace perftk::cli
