#include "doc/command_line_facts.h"

#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"

namespace perftk::doc {
namespace {

// CLI11 names an option's value "TYPE" followed by ":DESCRIPTION" per check;
// a CLI::IsMember check describes itself as "{a,b,c}" (or "{a->x,...}").
void ReadTypeName(const std::string& type_name, OptionFacts& facts) {
  std::vector<std::string> parts = absl::StrSplit(type_name, ':');
  facts.value_name = parts.front();
  for (size_t i = 1; i < parts.size(); ++i) {
    absl::string_view part = parts[i];
    if (!absl::ConsumePrefix(&part, "{") || !absl::ConsumeSuffix(&part, "}")) continue;
    for (absl::string_view choice : absl::StrSplit(part, ',', absl::SkipEmpty())) {
      facts.choices.emplace_back(choice.substr(0, choice.find("->")));
    }
  }
}

OptionFacts FactsOf(const CLI::Option& option) {
  OptionFacts facts;
  facts.positional = !option.nonpositional();
  if (facts.positional) {
    facts.names.push_back(option.get_name());
  } else {
    for (const std::string& name : option.get_snames()) facts.names.push_back("-" + name);
    for (const std::string& name : option.get_lnames()) facts.names.push_back("--" + name);
  }
  facts.takes_value = option.get_expected_max() != 0;  // a flag expects none
  if (!option.get_option_text().empty()) {
    facts.value_name = std::string(absl::StripLeadingAsciiWhitespace(option.get_option_text()));
  } else if (facts.takes_value) {
    ReadTypeName(option.get_type_name(), facts);
  }
  facts.description = option.get_description();
  if (facts.takes_value) facts.default_value = option.get_default_str();
  facts.required = option.get_required();
  return facts;
}

}  // namespace

std::vector<OptionFacts> OptionsOf(const CLI::App& command) {
  std::vector<OptionFacts> options;
  // --help lists positionals first, then options, each in the order added.
  for (bool positional : {true, false}) {
    for (const CLI::Option* option : command.get_options()) {
      if (option->get_group().empty() || option->nonpositional() == positional) continue;
      options.push_back(FactsOf(*option));
    }
  }
  return options;
}

std::vector<const CLI::App*> SubcommandsOf(const CLI::App& app) {
  return app.get_subcommands([](const CLI::App* sub) { return !sub->get_group().empty(); });
}

std::string SummaryOf(const std::string& description) {
  absl::string_view text = description;
  text = text.substr(0, text.find("\n\n"));
  for (absl::string_view end : {". ", ".\n"}) {
    if (size_t at = text.find(end); at != absl::string_view::npos) text = text.substr(0, at + 1);
  }
  return absl::StrReplaceAll(text, {{"\n", " "}});
}

}  // namespace perftk::doc
