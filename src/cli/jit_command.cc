#include "cli/jit_command.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "cli/jobs.h"
#include "cli/standard_streams.h"
#include "cli/usage.h"
#include "cli/warnings.h"
#include "elf/build_id_cache.h"
#include "jit/jit_tool.h"
#include "pipeline/pipeline.h"

namespace perftk::cli {
namespace {

// Files a second thread creates ahead of their writing (--jobs 2).
constexpr size_t kCreateAhead = 128;

constexpr int kMaxJobs = 2;

// Empty work is named with how to record what was missing (exit status unchanged).
void WarnAboutMissingJitdumps(const jit::JitTool& tool) {
  constexpr char kHowTo[] =
      "run the runtime with its jitdump option (node --perf-prof, java "
      "-agentpath:libperf-jvmti.so) under `perf record -k 1`, and keep the jit-<pid>.dump files "
      "where it wrote them";
  const std::vector<uint32_t> pids = tool.PidsWithoutJitdump();
  StderrWarnings warnings;
  if (!pids.empty()) {
    std::string more =
        pids.size() > 1 ? absl::StrCat(" (and ", pids.size() - 1, " more process(es))") : "";
    warnings.Warn(absl::StrCat("no jitdump found for pid ", pids.front(), more,
                               ", which ran code from anonymous memory: ", kHowTo));
  } else if (tool.stats().dumps == 0) {
    warnings.Warn(absl::StrCat(
        "no jitdump found (the recording maps no jit-<pid>.dump), so nothing was injected: ",
        kHowTo));
  }
}

}  // namespace

absl::Status RunJit(const JitOptions& options) {
  if (absl::Status s = CheckNoTerminal("jit", options.input, options.output); !s.ok()) return s;
  if (!options.jit_dir.empty()) {
    struct stat st;
    if (stat(options.jit_dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--jit-dir ", options.jit_dir, ": not a directory"));
    }
  }
  const int jobs = ResolveJobs(options.jobs, kMaxJobs);
  if (jobs < 1 || jobs > kMaxJobs) {
    return UsageError(absl::StrCat("--jobs=", options.jobs, ": expected 1 or 2"));
  }
  std::string cache_dir = options.buildid_cache;
  if (cache_dir == kDefaultBuildIdCache) {
    cache_dir = elf::BuildIdCacheDir();  // where perf report and perftk's other commands look
    if (cache_dir.empty()) {
      return absl::FailedPreconditionError(
          "--buildid-cache: no cache directory (no --buildid-dir, PERF_BUILDID_DIR, buildid.dir "
          "in perf's config or HOME); give the directory as --buildid-cache=DIR");
    }
  }
  jit::JitToolOptions tool_options{options.jit_dir, options.merge, cache_dir};
  if (jobs == 2) tool_options.create_ahead = jit::JitFileWriter::AheadWithinFileLimit(kCreateAhead);
  // Printed after the run, below any progress line.
  base::WarningList tool_warnings;
  jit::JitTool tool(tool_options, tool_warnings);
  pipeline::PipelineOptions run_options;
  run_options.input = options.input;
  run_options.output = options.output;
  if (options.pipe) run_options.layout = perf::DataLayout::kPipe;
  run_options.progress_label = "perftk jit";
  run_options.show_progress = !options.quiet;
  run_options.ordered = true;
  WithBuildIds run(BuildIdSettingsOf(options.build_ids, false, options.input), tool);
  StderrWarnings warnings;
  absl::StatusOr<pipeline::PipelineStats> stats =
      pipeline::RunPipeline(run.tool(), run_options, warnings);
  PrintWarnings(tool_warnings.lines());
  if (!stats.ok()) return stats.status();
  tool.Commit();
  WarnAboutMissingJitdumps(tool);
  if (!options.quiet) {
    const jit::JitToolStats& s = tool.stats();
    std::fprintf(stderr,
                 "perftk jit: %llu jitdump(s), %llu code loads, %llu moves: %llu ELF file(s), "
                 "%llu MMAP2 injected, %llu anonymous mmaps dropped\n",
                 static_cast<unsigned long long>(s.dumps),
                 static_cast<unsigned long long>(s.code_loads),
                 static_cast<unsigned long long>(s.code_moves),
                 static_cast<unsigned long long>(s.files_written),
                 static_cast<unsigned long long>(s.mmaps_injected),
                 static_cast<unsigned long long>(s.anon_mmaps_dropped));
    if (s.own_files_for_unwinding > 0) {
      std::fprintf(stderr,
                   "perftk jit: --merge: %llu load(s) with unwinding tables it cannot merge "
                   "kept a file of their own\n",
                   static_cast<unsigned long long>(s.own_files_for_unwinding));
    }
    run.PrintSummary("perftk jit");
  }
  return absl::OkStatus();
}

void RegisterJitCommand(CLI::App& app, absl::Status& outcome) {
  auto options = std::make_shared<JitOptions>();
  CLI::App* sub = app.add_subcommand(
      "jit",
      "Turn jitdumps into ELF files with symbols (perf inject --jit)\n\n"
      "Turns each process's jit-<pid>.dump into ELF files with symbols and injects\n"
      "MMAP2 records for them (what `perf inject --jit` does); the //anon mmaps of\n"
      "processes that have a jitdump are dropped. Record with `perf record -k 1`.");
  sub->footer(
      "Each CODE_LOAD of a dump becomes jitted-<pid>-<code_index>.so beside the dump\n"
      "(or in --jit-dir), with its symbol, .eh_frame and line table; --merge writes one\n"
      "jitted-<pid>-merged.so per dump instead, for runtimes with very many functions,\n"
      "with every load's unwinding tables in its one .eh_frame (perf's libunwind\n"
      "unwinder cannot use them there and falls back to frame pointers in that code,\n"
      "see docs/examples.md). A process in a container (pid namespace) names its dump with\n"
      "its pid there; such dumps are found, and their pids translated, as perf does.\n"
      "Nothing is written to the build-id cache unless --buildid-cache is given\n"
      "(without DIR: --buildid-dir, else $PERF_BUILDID_DIR, else buildid.dir from\n"
      "~/.perfconfig, else ~/.debug, where perf report and perftk's other commands\n"
      "look); the output's\n"
      "build-id table lists every file written. Records are written in timestamp order.\n\n"
      "Examples:\n"
      "  perf record -k 1 -e cpu-clock -o perf.data node --perf-prof app.js\n"
      "  perftk jit -i perf.data -o jit.data\n"
      "  perf report -i jit.data --sort dso,sym\n"
      "  perftk jit -i perf.data -o jit.data --merge --jit-dir /tmp/jitted\n"
      "  perftk jit -i perf.data -o jit.data --buildid-cache    # perf report works\n"
      "                                                         # after the .so are gone\n"
      "  perf record -k 1 -o - node --perf-prof app.js | perftk jit -i - -o jit.data");
  sub->add_option("-i,--input", options->input, "Input perf.data (default: '-', standard input)");
  sub->add_option("-o,--output", options->output,
                  "Output perf.data (default: '-', standard output, in the pipe layout)");
  sub->add_option("--jit-dir", options->jit_dir,
                  "Write the jitted-*.so files here instead of beside each dump");
  sub->add_flag("--merge", options->merge, "One ELF file per dump instead of one per function");
  sub->add_flag(absl::StrCat("--buildid-cache{", kDefaultBuildIdCache, "}"), options->buildid_cache,
                "Also store the ELF files in perf's build-id cache: DIR (give it as\n"
                "--buildid-cache=DIR), else the one --buildid-dir names")
      ->type_name("[=DIR]");
  AddJobsOption(*sub, &options->jobs, kMaxJobs,
                "1: one thread; 2: a second thread creates the .so files ahead of their\n"
                "writing. The output is the same");
  sub->add_flag("--pipe", options->pipe, "Write the pipe layout even to a file");
  AddBuildIdDirOption(*sub);
  AddBuildIdFlags(*sub, options->build_ids, false);
  sub->add_flag("-q,--quiet", options->quiet,
                "No progress or summary on stderr (warnings and errors still)");
  sub->callback([options, &outcome] { outcome = RunJit(*options); });
}

}  // namespace perftk::cli
