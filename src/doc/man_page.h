// Manual pages in roff (man(7)) written from a CLI11 command line: the
// description, options and footer that `--help` prints, laid out as a
// manual page, so `man perftk-aslr` and `perftk help aslr` say the same.
//
// A footer or description paragraph is filled text, but for "Title:"
// followed by indented lines, kept as written (an EXAMPLES section for
// "Examples:"). The tool's footer blocks "Exit status:", "Environment:" and
// "Files:", lines of "  NAME  what it is", become the EXIT STATUS,
// ENVIRONMENT and FILES sections of every page. Option names and every '-'
// are written as roff's \- so they can be searched and copied.
#ifndef PERFTK_DOC_MAN_PAGE_H_
#define PERFTK_DOC_MAN_PAGE_H_

#include <string>

namespace CLI {
class App;
}

namespace perftk::doc {

// The page of the whole tool, perftk(1): its options and one line per
// subcommand pointing to the subcommand's page. `version` goes in the footer.
std::string ToolManPage(const CLI::App& app, const std::string& version);

// The page of one subcommand of `app`, <app>-<subcommand>(1).
std::string SubcommandManPage(const CLI::App& app, const CLI::App& subcommand,
                              const std::string& version);

// Whether a subcommand gets a page: all but `help`, which prints the others'.
bool HasManPage(const CLI::App& subcommand);

// The file name of a subcommand's page ("perftk-aslr.1"), or of the tool's
// page ("perftk.1") when `subcommand` is null.
std::string ManPageFileName(const CLI::App& app, const CLI::App* subcommand);

}  // namespace perftk::doc

#endif  // PERFTK_DOC_MAN_PAGE_H_
