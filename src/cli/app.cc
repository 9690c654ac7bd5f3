#include <cstdio>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/status/status.h"
#include "absl/strings/cord.h"
#include "base/file_roles.h"
#include "base/interrupt.h"
#include "cli/aslr_command.h"
#include "cli/command.h"
#include "cli/copy_command.h"
#include "cli/cs_etm_decode_command.h"
#include "cli/dump_command.h"
#include "cli/jit_command.h"
#include "cli/merge_profiles_command.h"
#include "cli/unwind_command.h"
#include "cli/uprobe_offset_command.h"
#include "cli/usage.h"

namespace perftk::cli {

namespace {

constexpr char kUsagePayload[] = "perftk/usage-error";

}  // namespace

absl::Status UsageError(absl::string_view message) {
  absl::Status status = absl::InvalidArgumentError(message);
  status.SetPayload(kUsagePayload, absl::Cord("1"));
  return status;
}

bool IsUsageError(const absl::Status& status) {
  return status.GetPayload(kUsagePayload).has_value();
}

int ExitCodeFor(const absl::Status& status) {
  if (status.ok()) return 0;
  return IsUsageError(status) ? 2 : 1;
}

namespace {

constexpr char kDescription[] =
    "perftk: rewrite, fix up and decode Linux perf.data recordings.\n"
    "Run `perftk help SUBCOMMAND` (or `perftk SUBCOMMAND --help`) for details.";

// `perftk help [SUBCOMMAND]` prints the help of the named subcommand.
void RegisterHelpCommand(CLI::App& app) {
  CLI::App* help = app.add_subcommand("help", "Show help for a subcommand");
  auto topic = std::make_shared<std::string>();
  help->add_option("subcommand", *topic, "Subcommand to explain");
  help->callback([&app, topic] {
    if (topic->empty()) throw CLI::CallForHelp();
    CLI::App* sub = nullptr;
    try {
      sub = app.get_subcommand(*topic);
    } catch (const CLI::OptionNotFound&) {
      throw CLI::ValidationError("help", "no subcommand named '" + *topic + "'");
    }
    std::fputs(sub->help().c_str(), stdout);
  });
}

}  // namespace

void RegisterAllCommands(CLI::App& app, absl::Status& outcome) {
  app.description(kDescription);
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
  base::InstallInterruptHandling();
  base::RunScope run;  // every input of the run is noted (base/file_roles.h)
  CLI::App app{"perftk", "perftk"};
  absl::Status outcome;
  RegisterAllCommands(app, outcome);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  }
  if (!outcome.ok()) {
    std::fprintf(stderr, "perftk: %s\n", std::string(outcome.message()).c_str());
  }
  return ExitCodeFor(outcome);
}

}  // namespace perftk::cli
