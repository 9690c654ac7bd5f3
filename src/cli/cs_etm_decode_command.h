// perftk cs-etm-decode: decode CoreSight ETM trace into branch-stack samples.
#ifndef PERFTK_CLI_CS_ETM_DECODE_COMMAND_H_
#define PERFTK_CLI_CS_ETM_DECODE_COMMAND_H_

#include <string>

#include "absl/status/status.h"

namespace CLI {
class App;
}

namespace perftk::cli {

struct CsEtmDecodeOptions {
  std::string input = "perf.data";
  std::string output;
};

absl::Status RunCsEtmDecode(const CsEtmDecodeOptions& options);
void RegisterCsEtmDecodeCommand(CLI::App& app, absl::Status& outcome);

}  // namespace perftk::cli

#endif  // PERFTK_CLI_CS_ETM_DECODE_COMMAND_H_
