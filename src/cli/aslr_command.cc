#include "cli/aslr_command.h"

#include <cstdio>
#include <optional>

#include "CLI/CLI.hpp"
#include "absl/strings/str_join.h"
#include "aslr/aslr_tool.h"
#include "build_ids/build_id_tool.h"
#include "cli/standard_streams.h"
#include "cli/warnings.h"
#include "pipeline/chained_tool.h"
#include "pipeline/pipeline.h"
#include "unwind/unwind_tool.h"

namespace perftk::cli {
namespace {

void PrintSummary(const aslr::AslrTool& tool, const pipeline::PipelineStats& run) {
  const aslr::AslrStats& s = tool.stats();
  std::fprintf(stderr,
               "perftk aslr: %llu records read, %llu written; %llu mappings and %llu samples "
               "rewritten, %llu addresses moved",
               static_cast<unsigned long long>(run.records_read),
               static_cast<unsigned long long>(run.records_written),
               static_cast<unsigned long long>(s.mappings),
               static_cast<unsigned long long>(s.samples),
               static_cast<unsigned long long>(s.addresses));
  std::fprintf(stderr, ", %llu of them in no mapping (%zu distinct pages substituted)\n",
               static_cast<unsigned long long>(s.unknown_addresses), tool.unknown_pages());
  for (const auto& [type, count] : s.dropped) {
    std::fprintf(stderr, "perftk aslr: dropped %llu %s records\n",
                 static_cast<unsigned long long>(count), type.c_str());
  }
  if (!s.removed.empty()) {
    std::fprintf(stderr, "perftk aslr: removed %s\n", absl::StrJoin(s.removed, "; ").c_str());
  }
}

}  // namespace

absl::Status RunAslr(const AslrOptions& options) {
  if (absl::Status s = CheckNoTerminal("aslr", options.input, options.output); !s.ok()) return s;
  aslr::AslrSettings settings;
  settings.strip_cmdline = options.strip_cmdline;
  settings.strip_hostname = options.strip_hostname;
  aslr::AslrTool aslr_tool(settings);
  // Dwarf stack copies become call chains before they are removed.
  unwind::UnwindTool unwinder;
  pipeline::ChainedTool unwind_then_aslr(unwinder, aslr_tool);
  pipeline::Tool& rewrite =
      options.no_unwind ? static_cast<pipeline::Tool&>(aslr_tool) : unwind_then_aslr;
  // Build ids are found at the recorded addresses, before they move.
  WithBuildIds run(BuildIdSettingsOf(options.build_ids, true, options.input), rewrite);
  pipeline::PipelineOptions run_options;
  run_options.input = options.input;
  run_options.output = options.output;
  run_options.ordered = true;
  run_options.progress_label = "perftk aslr";
  run_options.show_progress = !options.quiet;
  if (options.pipe) run_options.layout = perf::DataLayout::kPipe;
  StderrWarnings warnings;
  absl::StatusOr<pipeline::PipelineStats> stats =
      pipeline::RunPipeline(run.tool(), run_options, warnings);
  if (!stats.ok()) return stats.status();
  if (!options.quiet) {
    PrintSummary(aslr_tool, *stats);
    run.PrintSummary("perftk aslr");
    if (unwinder.stats().with_stack != 0) {
      std::fprintf(stderr, "perftk aslr: unwound before removing the stacks: %s\n",
                   unwind::DescribeUnwindStats(unwinder.stats()).c_str());
    }
  }
  return absl::OkStatus();
}

void RegisterAslrCommand(CLI::App& app, absl::Status& outcome) {
  auto options = std::make_shared<AslrOptions>();
  CLI::App* sub =
      app.add_subcommand("aslr",
                         "Hide a recording's address layout; perf report shows the same\n\n"
                         "Rewrites a recording so that it can be shared without telling where the\n"
                         "programs, libraries and the kernel were loaded.");
  sub->footer(
      "Every mapping of every process and of the kernel is moved to a new place\n"
      "(user maps from 0x100000000000 up, kernel maps from 0xffff800010000000),\n"
      "keeping each address's offset inside its mapping, so `perf report` shows\n"
      "the same symbols, dsos and percentages. Sample ips and addrs, callchains,\n"
      "branch stacks, KSYMBOL addresses and mapping starts are rewritten; the same\n"
      "object at the same place moves alike in every process. Addresses that no\n"
      "mapping covers get a unique substitute page each (0x300000000000 up,\n"
      "0xffff840000000000 up for the kernel half), never 0.\n\n"
      "A --call-graph dwarf recording is first unwound as `perftk unwind` does, so\n"
      "its user call graphs survive as plain call chains (--no-unwind: not).\n"
      "Removed: register dumps, user stack copies (the samples stay), tracepoint\n"
      "raw data, physical addresses, AUX data and AUXTRACE/TEXT_POKE records,\n"
      "breakpoint addresses and kprobe/uprobe targets in the attrs, BPF program\n"
      "info, the kernel symbol table in the tracing data. Kept: build ids, file\n"
      "names, host name and command line (unless --strip-hostname, --strip-cmdline).\n"
      "Build ids: a recording that names none (e.g. one streamed from\n"
      "`perf record -o -`) gets those of the DSOs its samples hit, found in the\n"
      "MMAP2 records, else in the files themselves when they are still the files\n"
      "recorded (inode), else for the kernel and modules in /sys when recorded on\n"
      "this machine; --buildid-all for every mapped DSO, --no-build-ids for none.\n"
      "The same input always gives the same output.\n\n"
      "Examples:\n"
      "  perftk aslr -i perf.data -o shared.data\n"
      "  perf record -o - -- ./prog | perftk aslr -i - -o shared.data");
  sub->add_option("-i,--input", options->input, "Input perf.data (default: '-', standard input)");
  sub->add_option("-o,--output", options->output,
                  "Output perf.data (default: '-', standard output, in the pipe layout)");
  sub->add_flag("--pipe", options->pipe, "Write the pipe layout even to a file");
  sub->add_flag("--strip-cmdline", options->strip_cmdline,
                "Drop the recorded command line from the header");
  sub->add_flag("--strip-hostname", options->strip_hostname,
                "Drop the recorded host name from the header");
  sub->add_flag("--no-unwind", options->no_unwind,
                "Do not unwind dwarf stack copies into call chains before removing them");
  AddBuildIdFlags(*sub, options->build_ids, true);
  sub->add_flag("-q,--quiet", options->quiet,
                "No progress or summary on stderr (warnings and errors still)");
  sub->callback([options, &outcome] { outcome = RunAslr(*options); });
}

}  // namespace perftk::cli
