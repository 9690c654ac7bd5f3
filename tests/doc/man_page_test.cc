#include "doc/man_page.h"

#include <string>

#include "CLI/CLI.hpp"
#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "cli/command.h"
#include "doc/command_line_facts.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "toy_app.h"

namespace perftk::doc {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(ManPage, SubcommandPageHasNameOptionsDefaultsChoicesAndExamples) {
  ToyApp toy;
  const std::string page = SubcommandManPage(toy.app, *toy.app.get_subcommand("shrink"), "9.9");
  EXPECT_THAT(page, HasSubstr(".TH \"TOY-SHRINK\" 1 \"\" \"toy 9.9\""));
  EXPECT_THAT(page, HasSubstr(".SH NAME\ntoy\\-shrink \\- Make a file smaller in two lines\n"));
  EXPECT_THAT(page, HasSubstr("\\fBtoy shrink\\fR [\\fIOPTIONS\\fR] \\fIfile\\fR\n"));
  EXPECT_THAT(page, HasSubstr(".TP\n\\fB\\-i\\fR, \\fB\\-\\-input\\fR \\fITEXT\\fR\nInput file "
                              "(default: in.bin)\n"));
  EXPECT_THAT(page, HasSubstr("\\fB\\-\\-level\\fR \\fITEXT\\fR\nHow hard (one of: fast, best)\n"));
  EXPECT_THAT(page, HasSubstr(".TP\n\\fB\\-q\\fR, \\fB\\-\\-quiet\\fR\nSay nothing\n"));
  EXPECT_THAT(page, HasSubstr(".TP\n\\fBfile\\fR\nThe file (required)\n"));
  // roff requests and escapes in the text are printed, not obeyed.
  EXPECT_THAT(page, HasSubstr("\n\\&.starts with a dot and has a \\e backslash."));
  EXPECT_THAT(page, HasSubstr(".PP\nNotes:\n.RS\n.nf\nkept as written\n.fi\n.RE\n"));
  EXPECT_THAT(page, HasSubstr(".SH EXAMPLES\n.nf\ntoy shrink \\-i a.bin \\-\\-level=fast\n.fi\n"));
  EXPECT_THAT(page, Not(HasSubstr("Examples:")));
}

TEST(ManPage, ToolPageListsSubcommandsWithTheirPagesButHelp) {
  ToyApp toy;
  const std::string page = ToolManPage(toy.app, "9.9");
  EXPECT_THAT(page, HasSubstr(".SH NAME\ntoy \\- does toy things.\n"));
  EXPECT_THAT(page, HasSubstr(".TP\n\\fBshrink\\fR\nMake a file smaller in two lines. See "
                              "\\fBtoy\\-shrink\\fR(1).\n"));
  EXPECT_THAT(page, HasSubstr(".TP\n\\fBhelp\\fR\nShow help for a subcommand.\n"));
  EXPECT_THAT(page, HasSubstr(".SH SEE ALSO\n\\fBtoy\\-shrink\\fR(1), \\fBperf\\fR(1)\n"));
  EXPECT_EQ(ManPageFileName(toy.app, toy.app.get_subcommand("shrink")), "toy-shrink.1");
  EXPECT_EQ(ManPageFileName(toy.app, nullptr), "toy.1");
}

TEST(ManPage, ToolFooterSectionsGoOnEveryPage) {
  ToyApp toy;
  toy.app.footer(
      "Exit status:\n  0     Success.\n  2     A usage error.\n\n"
      "Environment:\n  TOY_DIR  Where toys are.\n\nFiles:\n  ~/.toy  The toy box.");
  const std::string sections =
      ".SH \"EXIT STATUS\"\n.TP\n\\fB0\\fR\nSuccess.\n.TP\n\\fB2\\fR\nA usage error.\n"
      ".SH \"ENVIRONMENT\"\n.TP\n\\fBTOY_DIR\\fR\nWhere toys are.\n"
      ".SH \"FILES\"\n.TP\n\\fB~/.toy\\fR\nThe toy box.\n";
  EXPECT_THAT(ToolManPage(toy.app, "9.9"), HasSubstr(sections));
  const std::string page = SubcommandManPage(toy.app, *toy.app.get_subcommand("shrink"), "9.9");
  EXPECT_THAT(page, HasSubstr(sections));
  EXPECT_THAT(page, Not(HasSubstr("Exit status:")));
}

// perftk's own pages hold every option and every example line its --help
// shows: a new option or example cannot miss the manual.
TEST(ManPage, PerftkPagesHoldEveryOptionAndExampleOfHelp) {
  CLI::App app{"perftk", "perftk"};
  absl::Status outcome;
  cli::RegisterAllCommands(app, outcome);
  int pages = 0;
  for (const CLI::App* sub : SubcommandsOf(app)) {
    if (!HasManPage(*sub)) continue;
    ++pages;
    const std::string page = SubcommandManPage(app, *sub, "0");
    for (const OptionFacts& option : OptionsOf(*sub)) {
      for (const std::string& name : option.names) {
        EXPECT_THAT(page, HasSubstr(absl::StrCat("\\fB", absl::StrReplaceAll(name, {{"-", "\\-"}}),
                                                 "\\fR")))
            << sub->get_name();
      }
    }
    const std::string footer = sub->get_footer();
    const size_t examples = footer.find("Examples:\n");
    ASSERT_NE(examples, std::string::npos) << sub->get_name();
    for (absl::string_view line : absl::StrSplit(footer.substr(examples + 10), '\n')) {
      if (!absl::StartsWith(line, "  ")) break;
      EXPECT_THAT(page,
                  HasSubstr(absl::StrReplaceAll(line.substr(2), {{"\\", "\\e"}, {"-", "\\-"}})))
          << sub->get_name();
    }
  }
  EXPECT_EQ(pages, 8);  // aslr, jit, cs-etm-decode, uprobe-offset, unwind, dump, copy,
                        // merge-profiles
}

TEST(CommandLineFacts, SummaryIsTheFirstSentenceOnOneLine) {
  EXPECT_EQ(SummaryOf("Decode trace\ninto samples. Then more.\n\nOther"),
            "Decode trace into samples.");
  EXPECT_EQ(SummaryOf("No full stop\n\nSecond paragraph. Here"), "No full stop");
  EXPECT_EQ(SummaryOf("Ends at a line end.\nNext"), "Ends at a line end.");
}

}  // namespace
}  // namespace perftk::doc
