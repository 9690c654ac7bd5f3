// The contract every perftk subcommand follows.
//
// Each subcommand lives in one file, src/cli/<name>_command.cc, and exposes:
//   struct <Name>Options { ... };                          // parsed flags
//   absl::Status Run<Name>(const <Name>Options&);          // the work; tests call it
//   void Register<Name>Command(CLI::App&, absl::Status&);  // adds the CLI11 subcommand
// Register stores the outcome of Run in the status it is given; main turns
// that status into an exit code (see ExitCodeFor).
#ifndef PERFTK_CLI_COMMAND_H_
#define PERFTK_CLI_COMMAND_H_

#include <string>

#include "absl/status/status.h"

namespace CLI {
class App;
}

namespace perftk::cli {

// 0 for OK, 2 for a usage error (cli/usage.h), 1 otherwise.
int ExitCodeFor(const absl::Status& status);

// Builds the whole command line: every subcommand, --version, `help SUBCOMMAND`.
// `outcome` receives the status of the subcommand that ran.
void RegisterAllCommands(CLI::App& app, absl::Status& outcome);

// Parses argv and runs the chosen subcommand; returns the process exit code.
int RunMain(int argc, char** argv);

}  // namespace perftk::cli

#endif  // PERFTK_CLI_COMMAND_H_
