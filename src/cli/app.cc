#include <algorithm>
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/file_roles.h"
#include "base/interrupt.h"
#include "base/malloc_arenas.h"
#include "base/status_prefix.h"
#include "cli/aslr_command.h"
#include "cli/command.h"
#include "cli/copy_command.h"
#include "cli/cs_etm_decode_command.h"
#include "cli/dump_command.h"
#include "cli/jit_command.h"
#include "cli/merge_profiles_command.h"
#include "cli/nearest_name.h"
#include "cli/unwind_command.h"
#include "cli/uprobe_offset_command.h"
#include "cli/usage.h"

namespace perftk::cli {

namespace {

constexpr char kUsageMark[] = "perftk/usage-error";

}  // namespace

absl::Status UsageError(absl::string_view message) {
  return base::Marked(absl::InvalidArgumentError(message), kUsageMark);
}

bool IsUsageError(const absl::Status& status) { return base::HasMark(status, kUsageMark); }

int ExitCodeFor(const absl::Status& status) {
  if (status.ok()) return 0;
  return IsUsageError(status) ? 2 : 1;
}

namespace {

// What holds for every subcommand, for the manual pages (doc/man_page.h
// makes sections of these blocks).
constexpr char kToolFooter[] =
    "Exit status:\n"
    "  0       Success (also when there was nothing to do: a warning says so).\n"
    "  1       An error: bad input, named with its file and offset; a failed read or write; out "
    "of memory. No partial output is left.\n"
    "  2       A usage error: an unknown subcommand or option, a value outside what --help "
    "allows, options that exclude each other.\n"
    "  128+N   Ended by signal N (SIGINT, SIGTERM, ...), after removing what the run had made; "
    "141 (SIGPIPE) when the reader of standard output went away.\n"
    "\n"
    "Environment:\n"
    "  PERF_BUILDID_DIR  perf's build-id cache, unless --buildid-dir names one.\n"
    "  PERF_CONFIG  perf's configuration file, read instead of /etc/perfconfig and "
    "~/.perfconfig (empty: none).\n"
    "  HOME  Where ~/.debug and ~/.perfconfig are.\n"
    "  TMPDIR  Where cs-etm-decode keeps the samples of a trace block past 8 MB until the block "
    "is written, in a file without a name (default /tmp).\n"
    "\n"
    "Files:\n"
    "  ~/.debug  perf's build-id cache, unless --buildid-dir, PERF_BUILDID_DIR or buildid.dir "
    "name another; binaries are looked up there, jit --buildid-cache adds to it.\n"
    "  ~/.perfconfig  perf's configuration, after /etc/perfconfig: its buildid.dir is read.\n"
    "  /usr/lib/debug/.build-id  Separate debug files, found by build id.\n"
    "  OUTPUT.tmp.PID  An output being written beside OUTPUT, renamed over it at the end; "
    "removed when the run fails or is ended by a signal.";

constexpr char kSummary[] = "perftk: rewrite, fix up and decode Linux perf.data recordings.";
constexpr char kMore[] =
    "Run `perftk help SUBCOMMAND` (or `perftk SUBCOMMAND --help`) for its options and examples.";

std::vector<std::string> SubcommandNames(CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    names.push_back(sub->get_name());
  }
  return names;
}

// What `perftk`, `perftk help` and `perftk --help` print: the subcommands,
// each with the first line of its description.
std::string Overview(CLI::App& app) {
  std::string text =
      absl::StrCat(kSummary, "\n\nUsage: perftk SUBCOMMAND [OPTIONS]\n\nSubcommands:\n");
  for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    const std::string& description = sub->get_description();  // its first line sums it up
    absl::StrAppendFormat(&text, "  %-15s %s\n", sub->get_name(),
                          description.substr(0, description.find('\n')));
  }
  absl::StrAppend(&text, "\n", kMore, "\n");
  return text;
}

// "Did you mean 'aslr'?", or nothing.
std::string Suggestion(absl::string_view typed, const std::vector<std::string>& names) {
  const std::string nearest = NearestName(typed, names);
  return nearest.empty() ? std::string() : absl::StrCat("; did you mean '", nearest, "'?");
}

// `perftk help NAME` for a NAME that is no subcommand.
struct UnknownHelpTopic : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// `perftk help [SUBCOMMAND]` prints the help of the named subcommand, or
// the overview.
void RegisterHelpCommand(CLI::App& app) {
  CLI::App* help = app.add_subcommand("help", "Show the subcommands, or one subcommand's help");
  auto topic = std::make_shared<std::string>();
  help->add_option("subcommand", *topic, "Subcommand to explain");
  help->callback([&app, topic] {
    if (topic->empty()) {
      std::fputs(Overview(app).c_str(), stdout);
      return;
    }
    CLI::App* sub = nullptr;
    try {
      sub = app.get_subcommand(*topic);
    } catch (const CLI::OptionNotFound&) {
      throw UnknownHelpTopic(absl::StrCat("help: '", *topic, "' is not a perftk subcommand",
                                          Suggestion(*topic, SubcommandNames(app))));
    }
    std::fputs(sub->help().c_str(), stdout);
  });
}

// A usage error said perftk's way, with the hint where to look; returns 2.
int SayUsageError(absl::string_view message, absl::string_view help_command,
                  absl::string_view what_it_shows = "the options and examples") {
  std::fprintf(stderr, "perftk: %s\nRun `%s` for %s.\n", std::string(message).c_str(),
               std::string(help_command).c_str(), std::string(what_it_shows).c_str());
  return 2;
}

// A parse error, named after the subcommand parsed when there is one, with
// that subcommand's help (else the list) as the hint.
int SayParseError(CLI::App& app, absl::string_view message) {
  std::vector<CLI::App*> parsed = app.get_subcommands();
  if (parsed.empty()) return SayUsageError(message, "perftk help", "the list of subcommands");
  const std::string& name = parsed.front()->get_name();
  return SayUsageError(absl::StrCat(name, ": ", message), absl::StrCat("perftk help ", name));
}

// The first word that is not an option, when it names no subcommand.
std::optional<std::string> UnknownSubcommand(CLI::App& app, int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') return std::nullopt;
  const std::vector<std::string> names = SubcommandNames(app);
  if (std::find(names.begin(), names.end(), argv[1]) != names.end()) return std::nullopt;
  return std::string(argv[1]);
}

// CLI11 found arguments the subcommand does not take: name the first
// unknown option and the nearest real one.
int ReportExtras(CLI::App& app, const CLI::ExtrasError& error) {
  std::vector<CLI::App*> parsed = app.get_subcommands();
  if (parsed.empty()) return SayParseError(app, error.what());
  CLI::App& sub = *parsed.front();
  std::vector<std::string> options;
  for (const CLI::Option* option : sub.get_options()) {
    for (const std::string& name : option->get_lnames()) options.push_back("--" + name);
    for (const std::string& name : option->get_snames()) options.push_back("-" + name);
  }
  for (const std::string& extra : sub.remaining()) {
    if (extra.size() < 2 || extra[0] != '-') continue;
    const std::string typed = extra.substr(0, extra.find('='));
    // A long option may be mistyped; a letter is only ever another letter.
    const bool is_long = typed.size() > 2 && typed[1] == '-';
    return SayParseError(
        app, absl::StrCat("no option '", typed, "'", is_long ? Suggestion(typed, options) : ""));
  }
  return SayParseError(app, error.what());
}

}  // namespace

void RegisterAllCommands(CLI::App& app, absl::Status& outcome) {
  app.description(absl::StrCat(kSummary, "\n", kMore));
  app.footer(kToolFooter);
  app.set_version_flag("--version", std::string("perftk ") + PERFTK_VERSION);
  app.require_subcommand(1);
  RegisterAslrCommand(app, outcome);
  RegisterJitCommand(app, outcome);
  RegisterCsEtmDecodeCommand(app, outcome);
  RegisterMergeProfilesCommand(app, outcome);
  RegisterUnwindCommand(app, outcome);
  RegisterUprobeOffsetCommand(app, outcome);
  RegisterDumpCommand(app, outcome);
  RegisterCopyCommand(app, outcome);
  RegisterHelpCommand(app);
}

int RunMain(int argc, char** argv) {
  base::FitMallocArenasToAddressLimit();  // before any thread allocates
  base::InstallInterruptHandling();
  base::RunScope run;  // every input of the run is noted (base/file_roles.h)
  CLI::App app{"perftk", "perftk"};
  absl::Status outcome;
  RegisterAllCommands(app, outcome);
  if (argc < 2) {
    std::fputs(Overview(app).c_str(), stderr);
    return 2;
  }
  if (std::optional<std::string> typed = UnknownSubcommand(app, argc, argv)) {
    return SayUsageError(absl::StrCat("'", *typed, "' is not a perftk subcommand",
                                      Suggestion(*typed, SubcommandNames(app))),
                         "perftk help", "the list of subcommands");
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    if (app.get_subcommands().empty()) {
      std::fputs(Overview(app).c_str(), stdout);
      return 0;
    }
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ExtrasError& e) {
    return ReportExtras(app, e);
  } catch (const UnknownHelpTopic& e) {
    return SayUsageError(e.what(), "perftk help", "the list of subcommands");
  } catch (const CLI::ParseError& e) {
    return SayParseError(app, e.what());
  }
  // A reader that went away ends the run as it ends coreutils' (base/interrupt.h).
  if (base::IsClosedPipe(outcome)) base::EndByClosedPipe();
  if (!outcome.ok()) {
    std::fprintf(stderr, "perftk: %s\n", std::string(outcome.message()).c_str());
  }
  return ExitCodeFor(outcome);
}

}  // namespace perftk::cli
