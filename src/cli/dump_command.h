// perftk dump: a readable listing of everything a recording holds — header,
// attrs, features and every record with its decoded fields.
#ifndef PERFTK_CLI_DUMP_COMMAND_H_
#define PERFTK_CLI_DUMP_COMMAND_H_

#include <cstdio>
#include <string>

#include "absl/status/status.h"

namespace CLI {
class App;
}

namespace perftk::cli {

struct DumpOptions {
  std::string input;  // empty: cli/standard_streams.h's DefaultRecordingInput
  bool json = false;  // one JSON object per line
  bool header_only = false;
  bool ordered = false;  // in timestamp order, as perf report sees them
  bool resolve = false;  // follow the address spaces; name each sample's map
};

absl::Status RunDump(const DumpOptions& options, std::FILE* out);
void RegisterDumpCommand(CLI::App& app, absl::Status& outcome);

}  // namespace perftk::cli

#endif  // PERFTK_CLI_DUMP_COMMAND_H_
