#include "cli/unwind_command.h"

#include <cstdio>

#include "CLI/CLI.hpp"
#include "absl/strings/str_format.h"
#include "cli/jobs.h"
#include "cli/standard_streams.h"
#include "cli/usage.h"
#include "cli/warnings.h"
#include "pipeline/pipeline.h"
#include "unwind/unwind_tool.h"

namespace perftk::cli {
namespace {

constexpr int kMaxJobs = 64;

void PrintSummary(const unwind::UnwindStats& stats, const pipeline::PipelineStats& run) {
  std::fprintf(stderr, "perftk unwind: %llu records read, %llu written; %s\n",
               static_cast<unsigned long long>(run.records_read),
               static_cast<unsigned long long>(run.records_written),
               unwind::DescribeUnwindStats(stats).c_str());
  if (stats.frames != 0) {
    std::fprintf(
        stderr,
        "perftk unwind: %llu user frames, %.0f%% taken over from a thread's previous sample\n",
        static_cast<unsigned long long>(stats.frames),
        100.0 * static_cast<double>(stats.frames_taken_over) / static_cast<double>(stats.frames));
  }
}

}  // namespace

absl::Status RunUnwind(const UnwindOptions& options) {
  if (absl::Status s = CheckNoTerminal("unwind", options.input, options.output); !s.ok()) return s;
  const int jobs = ResolveJobs(options.jobs, kMaxJobs);
  if (jobs < 1 || jobs > kMaxJobs) {
    return UsageError(absl::StrFormat("--jobs=%d: expected 1 to %d", options.jobs, kMaxJobs));
  }
  unwind::UnwindSettings settings;
  settings.jobs = static_cast<size_t>(jobs);
  settings.keep_stack = options.keep_stack;
  settings.symfs = options.symfs;
  settings.take_over_frames = !options.no_take_over;
  unwind::UnwindTool tool(settings);
  pipeline::PipelineOptions run_options;
  run_options.input = options.input;
  run_options.output = options.output;
  run_options.ordered = true;
  run_options.progress_label = "perftk unwind";
  run_options.show_progress = !options.quiet;
  if (options.pipe) run_options.layout = perf::DataLayout::kPipe;
  WithBuildIds run(BuildIdSettingsOf(options.build_ids, false, options.input, options.symfs), tool);
  StderrWarnings warnings;
  absl::StatusOr<pipeline::PipelineStats> stats =
      pipeline::RunPipeline(run.tool(), run_options, warnings);
  if (!stats.ok()) return stats.status();
  if (tool.stats().samples > 0 && tool.stats().with_stack == 0) {
    // Empty work, named with how to record what it needs (exit status unchanged).
    StderrWarnings().Warn(
        "no sample has a stack copy, so nothing was unwound: record with `perf record "
        "--call-graph dwarf`");
  }
  if (!options.quiet) {
    PrintSummary(tool.stats(), *stats);
    run.PrintSummary("perftk unwind");
  }
  return absl::OkStatus();
}

void RegisterUnwindCommand(CLI::App& app, absl::Status& outcome) {
  auto options = std::make_shared<UnwindOptions>();
  CLI::App* sub =
      app.add_subcommand("unwind", "Turn dwarf stack copies (--call-graph dwarf) into call chains");
  sub->footer(
      "`perf record --call-graph dwarf` stores a copy of the user stack (8 KB by\n"
      "default) and the user registers in every sample, and perf unwinds them\n"
      "each time it reads the recording. perftk unwind does that once, with\n"
      "elfutils' libdw (one of perf's two unwinders) and the binaries'\n"
      ".eh_frame/.debug_frame, and writes each such sample with a plain call\n"
      "chain: the kernel part as recorded, then the unwound user frames (callers\n"
      "as return address - 1, as perf's unwinders give them). The stack copies\n"
      "and registers leave the samples and the attrs, so the output is a few\n"
      "percent of the input's size and `perf report`/`perf script` read it\n"
      "without unwinding. They show the same call graphs, except the `(inlined)`\n"
      "entries perf adds while unwinding, which a plain call chain cannot carry\n"
      "(`perf report --no-inline` on the input leaves them out).\n\n"
      "Binaries are read under --symfs DIR when given, else where the recording\n"
      "mapped them, else from perf's build-id cache (~/.debug); a file whose build\n"
      "id differs from the recorded one is not used. Unwinding stops at the first\n"
      "frame it cannot unwind; nothing after it is guessed. A sample nothing\n"
      "could be unwound for keeps its ip and kernel chain. On x86-64 a frame\n"
      "that does not save %rbx leaves it to its caller, as the psABI says and\n"
      "perf's libunwind unwinds (libdw loses it, and with it the callers of\n"
      "glibc's lazy-binding trampoline, which keeps its frame in %rbx).\n"
      "--jobs N unwinds on N threads, one per CPU: the main thread, which also\n"
      "reads and writes the recording, and N - 1 more; the output is byte for\n"
      "byte that of --jobs 1.\n\n"
      "Most samples of a thread share their outer frames (main, its loops, the\n"
      "thread's start) with the thread's previous sample. When unwinding reaches\n"
      "a frame in the very state (pc and registers) the previous sample's\n"
      "unwinding had there, and the stack holds what that unwinding read from\n"
      "there on, the frames above are taken over instead of unwound again: libdw\n"
      "would find the same ones. --no-take-over unwinds every frame (the output\n"
      "is the same; only slower).\n\n"
      "The summary on stderr counts the samples unwound fully, partly and not at\n"
      "all, and why:\n"
      "  no CFI                no unwind information for a pc\n"
      "  stack copy too short  record with a larger --call-graph dwarf,SIZE\n"
      "  unknown map           a pc in no mapping (JIT code) or a binary not found\n"
      "  memory not recorded   the unwind information reads other memory\n\n"
      "Examples:\n"
      "  perf record --call-graph dwarf -o perf.data -- ./prog\n"
      "  perftk unwind -i perf.data -o chains.data\n"
      "  perf report -i chains.data --stdio --children\n"
      "  perftk unwind -i perf.data -o chains.data --symfs /srv/sysroot");
  sub->add_option("-i,--input", options->input, "Input perf.data (default: '-', standard input)");
  sub->add_option("-o,--output", options->output,
                  "Output perf.data (default: '-', standard output, in the pipe layout)");
  sub->add_option("--symfs", options->symfs, "Look for binaries under this directory");
  AddBuildIdDirOption(*sub);
  AddBuildIdFlags(*sub, options->build_ids, false);
  sub->add_flag("--keep-stack", options->keep_stack,
                "Keep the stack copies and registers too (perf then unwinds them again)");
  AddJobsOption(*sub, &options->jobs, kMaxJobs, "Unwinding threads (output identical to --jobs 1)");
  sub->add_flag("--no-take-over", options->no_take_over,
                "Unwind every frame, even those a thread's previous sample shares (same output)");
  sub->add_flag("--pipe", options->pipe, "Write the pipe layout even to a file");
  sub->add_flag("-q,--quiet", options->quiet,
                "No progress or summary on stderr (warnings and errors still)");
  sub->callback([options, &outcome] { outcome = RunUnwind(*options); });
}

}  // namespace perftk::cli
