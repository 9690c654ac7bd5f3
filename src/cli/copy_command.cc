#include "cli/copy_command.h"

#include <memory>

#include "CLI/CLI.hpp"
#include "cli/build_id_flags.h"
#include "cli/standard_streams.h"
#include "cli/warnings.h"
#include "pipeline/pipeline.h"

namespace perftk::cli {

absl::Status RunCopy(const CopyOptions& options) {
  if (absl::Status s = CheckNoTerminal("copy", options.input, options.output); !s.ok()) return s;
  pipeline::CopyTool copy;
  pipeline::PipelineOptions run_options;
  run_options.input = options.input;
  run_options.output = options.output;
  if (options.pipe) run_options.layout = perf::DataLayout::kPipe;
  run_options.progress_label = "perftk copy";
  run_options.show_progress = !options.quiet;
  WithBuildIds run(BuildIdSettingsOf(options.build_ids, false, options.input), copy);
  // A sample's DSO is known once its MMAP is: in time order, as perf inject.
  run_options.ordered = run.adds_build_ids();
  StderrWarnings warnings;
  absl::Status status = pipeline::RunPipeline(run.tool(), run_options, warnings).status();
  if (status.ok() && !options.quiet) run.PrintSummary("perftk copy");
  return status;
}

void RegisterCopyCommand(CLI::App& app, absl::Status& outcome) {
  auto options = std::make_shared<CopyOptions>();
  CLI::App* sub =
      app.add_subcommand("copy", "Rewrite a recording unchanged, through perftk's reader/writer");
  sub->footer(
      "The output is in native byte order and uncompressed; `perf report` and\n"
      "`perf script` print the same for it as for the input. With --build-ids or\n"
      "--buildid-all, build ids are added (see perftk-aslr(1)) and records are\n"
      "written in time order, as perf inject does.\n\n"
      "Examples:\n"
      "  perftk copy -i perf.data -o copy.data\n"
      "  perf record -o - -- ./prog | perftk copy -i - -o prog.data\n"
      "  perftk copy -i perf.data -o - | perf report -i -");
  sub->add_option("-i,--input", options->input, "Input perf.data (default: '-', standard input)");
  sub->add_option("-o,--output", options->output,
                  "Output perf.data (default: '-', standard output, in the pipe layout)");
  sub->add_flag("--pipe", options->pipe, "Write the pipe layout even to a file");
  AddBuildIdFlags(*sub, options->build_ids, false);
  sub->add_flag("-q,--quiet", options->quiet,
                "No progress or summary on stderr (warnings and errors still)");
  sub->callback([options, &outcome] { outcome = RunCopy(*options); });
}

}  // namespace perftk::cli
