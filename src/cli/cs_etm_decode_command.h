// perftk cs-etm-decode: decode CoreSight ETM/ETE trace into branch-stack
// samples (a perf.data), or into AutoFDO, BOLT or perf-script text.
#ifndef PERFTK_CLI_CS_ETM_DECODE_COMMAND_H_
#define PERFTK_CLI_CS_ETM_DECODE_COMMAND_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace CLI {
class App;
}

namespace perftk::cli {

struct CsEtmDecodeOptions {
  // Recordings; "@FILE" stands for the paths FILE lists, one per line.
  // Several need --format=autofdo or bolt.
  // Empty: cli/standard_streams.h's DefaultRecordingInput.
  std::vector<std::string> inputs;
  std::string output;  // perf.data for --format=perf; text file ("-" or empty: stdout) otherwise
  std::string itrace = "il64";
  uint64_t every_taken = 0;  // nonzero: i samples every N taken branches
  std::string format = "perf";
  std::string symfs;
  std::string vmlinux;           // the kernel image (an ELF with symbols)
  std::string kcore;             // a kcore file (/proc/kcore on the recorded machine)
  std::string dso;               // --format=bolt or autofdo: the one binary to write
  std::string binary;            // --format=bolt or autofdo: a regex binaries' paths must match
  int jobs = 0;                  // 0: the default (cli/jobs.h)
  std::string decoder = "fast";  // or "opencsd"
  bool quiet = false;            // no summary line on stderr
};

absl::Status RunCsEtmDecode(const CsEtmDecodeOptions& options);
void RegisterCsEtmDecodeCommand(CLI::App& app, absl::Status& outcome);

}  // namespace perftk::cli

#endif  // PERFTK_CLI_CS_ETM_DECODE_COMMAND_H_
