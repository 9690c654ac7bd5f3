// What the manual and the shell completion need to know about a CLI11
// command line, read from the same CLI11::App that prints `--help`, so the
// generated files cannot say something the binary does not do.
#ifndef PERFTK_DOC_COMMAND_LINE_FACTS_H_
#define PERFTK_DOC_COMMAND_LINE_FACTS_H_

#include <string>
#include <vector>

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace perftk::doc {

// One option or positional argument as `--help` lists it.
struct OptionFacts {
  std::vector<std::string> names;    // "-i", "--input"; the argument's name for a positional
  std::string value_name;            // "TEXT", "INT", "[=DIR]"; empty for a flag
  std::vector<std::string> choices;  // from a CLI::IsMember check, else empty
  std::string description;
  std::string default_value;  // empty when there is none
  bool required = false;
  bool positional = false;
  bool takes_value = false;  // the next word (or "=VALUE") is its value
};

// Every option and positional of `command` (a subcommand or the whole app)
// that `--help` shows, in `--help`'s order.
std::vector<OptionFacts> OptionsOf(const CLI::App& command);

// The subcommands `--help` lists (those with a group), in its order.
std::vector<const CLI::App*> SubcommandsOf(const CLI::App& app);

// The first sentence of a description on one line: the summary a manual
// page's NAME section and the list of subcommands show.
std::string SummaryOf(const std::string& description);

}  // namespace perftk::doc

#endif  // PERFTK_DOC_COMMAND_LINE_FACTS_H_
