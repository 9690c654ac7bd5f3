#include "cli/copy_command.h"

#include "CLI/CLI.hpp"
#include "inject/pipeline.h"

namespace perftk::cli {

absl::Status RunCopy(const CopyOptions& options) {
  CopyTool tool;
  PipelineOptions pipeline;
  pipeline.input = options.input;
  pipeline.output = options.output;
  if (options.pipe) pipeline.layout = DataLayout::kPipe;
  pipeline.progress_label = "perftk copy";
  return RunPipeline(tool, pipeline).status();
}

void RegisterCopyCommand(CLI::App& app, absl::Status& outcome) {
  auto options = std::make_shared<CopyOptions>();
  CLI::App* sub = app.add_subcommand(
      "copy", "Rewrite a recording unchanged through perftk's reader and writer");
  sub->footer(
      "The output is in native byte order and uncompressed; `perf report` and\n"
      "`perf script` print the same for it as for the input.\n\n"
      "Examples:\n"
      "  perftk copy -i perf.data -o copy.data\n"
      "  perf record -o - -- ./prog | perftk copy -i - -o prog.data\n"
      "  perftk copy -i perf.data -o - | perf report -i -");
  sub->add_option("-i,--input", options->input, "Input perf.data, '-' for stdin")
      ->capture_default_str();
  sub->add_option("-o,--output", options->output, "Output perf.data, '-' for stdout (pipe layout)")
      ->required();
  sub->add_flag("--pipe", options->pipe, "Write the pipe layout even to a file");
  sub->callback([options, &outcome] { outcome = RunCopy(*options); });
}

}  // namespace perftk::cli
