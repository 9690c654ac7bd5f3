// A bash completion script written from a CLI11 command line: it completes
// the subcommand names, each subcommand's options, the choices of an option
// whose values are a CLI::IsMember set, and file names for other values and
// for positional arguments. It defines _<app>() and registers it with
// `complete`, and needs nothing from the bash-completion package, so it can
// be sourced alone (share/bash-completion/completions/<app> loads it).
#ifndef PERFTK_DOC_BASH_COMPLETION_H_
#define PERFTK_DOC_BASH_COMPLETION_H_

#include <string>

namespace CLI {
class App;
}

namespace perftk::doc {

std::string BashCompletion(const CLI::App& app);

}  // namespace perftk::doc

#endif  // PERFTK_DOC_BASH_COMPLETION_H_
