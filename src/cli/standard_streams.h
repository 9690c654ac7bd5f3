// -i and -o as perf takes them.
//
// The rewriting subcommands (aslr, copy, jit, unwind) take -i and -o as
// perf inject does: both default to '-', standard input and output, so
// `perf record -o - ... | perftk aslr | perf report -i -` needs no flags.
// A terminal on either side is refused with a hint: a recording is never
// typed in, and its bytes are no use on a screen.
//
// The reading subcommands (dump, cs-etm-decode) take -i as perf report and
// perf script do: '-' when standard input is a pipe, else perf.data.
#ifndef PERFTK_CLI_STANDARD_STREAMS_H_
#define PERFTK_CLI_STANDARD_STREAMS_H_

#include <string>

#include "absl/status/status.h"

namespace perftk::cli {

// A usage error when `input` is '-' and standard input is a terminal, or
// `output` is '-' and standard output is one. `subcommand` names the
// command in the hint.
absl::Status CheckNoTerminal(const std::string& subcommand, const std::string& input,
                             const std::string& output);

// perf report's default input: "-" when standard input is a FIFO, else
// "perf.data".
std::string DefaultRecordingInput();

}  // namespace perftk::cli

#endif  // PERFTK_CLI_STANDARD_STREAMS_H_
