// perftk_doc OUTDIR: writes perftk's manual pages (OUTDIR/man1/*.1) and its
// bash completion (OUTDIR/bash-completion/perftk) from the command line the
// perftk binary parses. The build runs it; the files are installed.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "CLI/CLI.hpp"
#include "absl/status/status.h"
#include "cli/command.h"
#include "doc/bash_completion.h"
#include "doc/command_line_facts.h"
#include "doc/man_page.h"

namespace {

bool WriteFile(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (out.fail()) std::fprintf(stderr, "perftk_doc: cannot write %s\n", path.c_str());
  return !out.fail();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: perftk_doc OUTDIR\n");
    return 2;
  }
  CLI::App app{"perftk", "perftk"};
  absl::Status unused_outcome;
  perftk::cli::RegisterAllCommands(app, unused_outcome);

  const std::filesystem::path out = argv[1];
  std::error_code error;
  std::filesystem::create_directories(out / "man1", error);
  std::filesystem::create_directories(out / "bash-completion", error);
  bool ok = WriteFile(out / "man1" / perftk::doc::ManPageFileName(app, nullptr),
                      perftk::doc::ToolManPage(app, PERFTK_VERSION));
  for (const CLI::App* sub : perftk::doc::SubcommandsOf(app)) {
    if (!perftk::doc::HasManPage(*sub)) continue;
    ok &= WriteFile(out / "man1" / perftk::doc::ManPageFileName(app, sub),
                    perftk::doc::SubcommandManPage(app, *sub, PERFTK_VERSION));
  }
  ok &= WriteFile(out / "bash-completion" / app.get_name(), perftk::doc::BashCompletion(app));
  return ok ? 0 : 1;
}
