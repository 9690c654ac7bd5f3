// perftk jit: turn jitdump files into ELF objects and MMAP2 records, like perf inject --jit.
#ifndef PERFTK_CLI_JIT_COMMAND_H_
#define PERFTK_CLI_JIT_COMMAND_H_

#include <string>

#include "absl/status/status.h"
#include "cli/build_id_flags.h"

namespace CLI {
class App;
}

namespace perftk::cli {

inline constexpr char kDefaultBuildIdCache[] = "HOME";

struct JitOptions {
  std::string input = "-";
  std::string output = "-";
  std::string jit_dir;  // empty: the .so files go beside each dump
  bool merge = false;
  // --buildid-cache[=DIR]: empty = no cache; kDefaultBuildIdCache = $HOME/.debug.
  std::string buildid_cache;
  bool pipe = false;   // write the pipe layout even to a file
  bool quiet = false;  // no summary line on stderr
  // --jobs: 1 = one thread; 2 = a second thread creates the .so files ahead
  // (the default with more than one CPU, cli/jobs.h). The output is the same.
  int jobs = 0;            // 0: the default
  BuildIdFlags build_ids;  // of the recording's own DSOs (the .so files have theirs)
};

absl::Status RunJit(const JitOptions& options);
void RegisterJitCommand(CLI::App& app, absl::Status& outcome);

}  // namespace perftk::cli

#endif  // PERFTK_CLI_JIT_COMMAND_H_
