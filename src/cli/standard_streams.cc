#include "cli/standard_streams.h"

#include <sys/stat.h>
#include <unistd.h>

#include "absl/strings/str_cat.h"
#include "cli/usage.h"

namespace perftk::cli {

absl::Status CheckNoTerminal(const std::string& subcommand, const std::string& input,
                             const std::string& output) {
  if (input == "-" && isatty(STDIN_FILENO)) {
    return UsageError(absl::StrCat(
        "the recording comes from standard input (-i -, the default), which is a terminal: name "
        "it with -i FILE (perftk ",
        subcommand, " -i perf.data -o out.data), or pipe one in (perf record -o - ... | perftk ",
        subcommand, " ...)"));
  }
  if (output == "-" && isatty(STDOUT_FILENO)) {
    return UsageError(absl::StrCat(
        "the recording goes to standard output (-o -, the default), which is a terminal: name "
        "the file with -o FILE, or pipe it on (perftk ",
        subcommand, " ... | perf report -i -)"));
  }
  return absl::OkStatus();
}

std::string DefaultRecordingInput() {
  struct stat st;
  return fstat(STDIN_FILENO, &st) == 0 && S_ISFIFO(st.st_mode) ? "-" : "perf.data";
}

}  // namespace perftk::cli
