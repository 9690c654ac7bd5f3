// ToyApp: a small CLI11 command line with each kind of thing the manual
// pages and the completion show (a required positional, an option with a
// default, one with IsMember choices, a flag, a footer with a titled block
// and examples, and a `help` subcommand).
#ifndef PERFTK_TESTS_DOC_TOY_APP_H_
#define PERFTK_TESTS_DOC_TOY_APP_H_

#include <string>

#include "CLI/CLI.hpp"

namespace perftk::doc {

struct ToyApp {
  ToyApp() {
    app.description("toy: does toy things. More words");
    CLI::App* sub = app.add_subcommand("shrink", "Make a file smaller\nin two lines");
    sub->footer(
        "First paragraph\n.starts with a dot and has a \\ backslash.\n\n"
        "Notes:\n  kept as written\n\n"
        "Examples:\n  toy shrink -i a.bin --level=fast");
    sub->add_option("file", file, "The file")->required();
    sub->add_option("-i,--input", input, "Input file")->capture_default_str();
    sub->add_option("--level", level, "How hard")->check(CLI::IsMember({"fast", "best"}));
    sub->add_flag("-q,--quiet", quiet, "Say nothing");
    app.add_subcommand("help", "Show help for a subcommand");
  }
  CLI::App app{"toy", "toy"};
  std::string file;
  std::string input = "in.bin";
  std::string level;
  bool quiet = false;
};

}  // namespace perftk::doc

#endif  // PERFTK_TESTS_DOC_TOY_APP_H_
