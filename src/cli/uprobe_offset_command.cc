#include "cli/uprobe_offset_command.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/output_file.h"
#include "cli/usage.h"
#include "cli/warnings.h"
#include "uprobe/probe_finder.h"
#include "uprobe/probe_text.h"
#include "uprobe/uprobe_resolver.h"
#include "uprobe/usdt_resolver.h"

namespace perftk::cli {
namespace {

using uprobe::ListedSite;
using uprobe::ProbeSite;

constexpr char kDescription[] =
    "Print the file offset of a function or USDT probe for a uprobe\n"
    "\n"
    "Prints the file offset where a uprobe for a function goes (what\n"
    "/sys/kernel/tracing/uprobe_events and perf_event_open's uprobe PMU take),\n"
    "or say exactly why there is no right answer.\n"
    "\n"
    "FUNCTION is NAME, NAME@VERSION (that version), NAME@@VERSION (the default\n"
    "version; plain NAME also means the default, as the dynamic linker binds),\n"
    "optionally followed by +OFFSET into the function (checked against its size).\n"
    "Functions come from .dynsym and .symtab; for a stripped file from its debug\n"
    "file (DEBUG_DIR/.build-id/xx/yyyy.debug, .gnu_debuglink) or MiniDebugInfo.\n"
    "A function the file imports resolves to its PLT stub (.plt, .plt.sec,\n"
    ".plt.got), which sees only calls from that file; --in-library resolves it\n"
    "in the library that defines it instead. IFUNCs are refused unless\n"
    "--ifunc-selector; several different functions with one name are refused\n"
    "unless --all.\n"
    "\n"
    "usdt:PROVIDER:NAME (or usdt:NAME) is a USDT probe (<sys/sdt.h>, .note.stapsdt):\n"
    "its offset, the semaphore's offset the kernel counts in (ref_ctr_offset) and\n"
    "its arguments in the kernel's fetch-args syntax; an argument fetch-args cannot\n"
    "express is named on stderr (and in --json) and left out. A probe with several\n"
    "sites (inlined) is refused unless --all.";

constexpr char kFooter[] =
    "\nExamples:\n"
    "  perftk uprobe-offset /usr/bin/foo main\n"
    "  perftk uprobe-offset /lib/x86_64-linux-gnu/libc.so.6 malloc free\n"
    "  perftk uprobe-offset /usr/bin/ls malloc                # PLT stub in ls\n"
    "  perftk uprobe-offset --in-library /usr/bin/ls malloc   # malloc in libc.so.6\n"
    "  perftk uprobe-offset ./libv.so vfn@VER_1 'vfn@@VER_2' parse+0x10\n"
    "  perftk uprobe-offset --format=uprobe-events --return ./app handle \\\n"
    "      >> /sys/kernel/tracing/uprobe_events\n"
    "  perftk uprobe-offset --list --json ./app\n"
    "  perftk uprobe-offset --format=uprobe-events /usr/bin/python3.11 \\\n"
    "      usdt:python:function__entry >> /sys/kernel/tracing/uprobe_events\n"
    "  perftk uprobe-offset --list-usdt /usr/bin/python3.11\n"
    "\nExit status: 0 when every name resolved, 1 otherwise (nothing is printed\n"
    "on stdout then), 2 when the command line cannot be parsed.\n";

uprobe::EventStyle StyleOf(const UprobeOffsetOptions& options) {
  return uprobe::EventStyle{.return_probe = options.return_probe, .group = options.group};
}

// The answer in --format hex or uprobe-events; `queries` names asked (0
// for a listing).
std::string FormatText(const std::vector<ProbeSite>& sites, const UprobeOffsetOptions& options,
                       size_t queries) {
  if (options.format == "uprobe-events") return uprobe::UprobeEventLines(sites, StyleOf(options));
  return uprobe::HexLines(sites, /*name_each=*/queries != 1 || sites.size() != 1);
}

bool NamesUsdtProbe(const UprobeOffsetOptions& options) {
  return std::any_of(options.functions.begin(), options.functions.end(),
                     [](const std::string& f) { return absl::StartsWith(f, "usdt:"); });
}

absl::Status CheckOptions(const UprobeOffsetOptions& options) {
  if (options.format != "hex" && options.format != "uprobe-events" && options.format != "json") {
    return UsageError(absl::StrCat("unknown --format '", options.format,
                                   "' (expected hex, uprobe-events or json)"));
  }
  if (options.list && options.list_usdt) {
    return UsageError("--list and --list-usdt cannot be combined");
  }
  if ((options.list || options.list_usdt) && !options.functions.empty()) {
    return UsageError("--list and --list-usdt take no function names");
  }
  if (!options.list && !options.list_usdt && options.functions.empty()) {
    return UsageError(
        "name at least one function or usdt:PROVIDER:NAME, or pass --list or --list-usdt");
  }
  if (!options.string_arguments.empty() && !NamesUsdtProbe(options)) {
    return UsageError("--string applies to usdt:PROVIDER:NAME probes only");
  }
  if (options.return_probe && (options.list_usdt || NamesUsdtProbe(options))) {
    return UsageError(
        "--return cannot be used with USDT probes: a probe site is inside a function, and a "
        "return probe there would take whatever is on the stack for the return address");
  }
  if (options.return_probe && options.format == "hex") {
    return UsageError("--return needs --format=uprobe-events or --json");
  }
  return absl::OkStatus();
}

// --list: every function with an offset; the others are warned about.
absl::Status PrintListing(uprobe::UprobeResolver& resolver, const UprobeOffsetOptions& options) {
  absl::StatusOr<std::vector<ListedSite>> listed = resolver.List();
  if (!listed.ok()) return listed.status();
  std::vector<ListedSite> usable;
  usable.reserve(listed->size());
  for (ListedSite& site : *listed) {
    if (site.note.empty()) {
      usable.push_back(std::move(site));
    } else {
      StderrWarnings().Warn(absl::StrCat(site.Symbol(), ": ", site.note));
    }
  }
  if (options.format == "hex") {
    return base::WriteToStandardOutput(uprobe::FunctionListing(usable));
  }
  std::vector<ProbeSite> sites;
  sites.reserve(usable.size());
  for (const ListedSite& site : usable) {
    sites.push_back(site.ToProbeSite());
    sites.back().path = resolver.path();
  }
  return base::WriteToStandardOutput(options.format == "json"
                                         ? uprobe::SitesJson(sites, StyleOf(options))
                                         : FormatText(sites, options, 0));
}

// --list-usdt: every USDT probe site of the binary.
absl::Status PrintUsdtListing(const UprobeOffsetOptions& options) {
  absl::StatusOr<std::unique_ptr<uprobe::UsdtResolver>> resolver =
      uprobe::UsdtResolver::Open(options.binary);
  if (!resolver.ok()) return resolver.status();
  if (options.format == "hex")
    return base::WriteToStandardOutput(uprobe::UsdtListing((*resolver)->probes()));
  const std::vector<ProbeSite> sites = (*resolver)->Sites();
  if (options.format == "json")
    return base::WriteToStandardOutput(uprobe::SitesJson(sites, StyleOf(options)));
  for (const ProbeSite& site : sites) {
    if (!site.note.empty()) {
      std::fprintf(stderr, "perftk: note: %s\n", site.note.c_str());
    }
  }
  return base::WriteToStandardOutput(FormatText(sites, options, 0));
}

}  // namespace

absl::Status RunUprobeOffset(const UprobeOffsetOptions& options) {
  if (absl::Status s = CheckOptions(options); !s.ok()) return s;
  if (options.list_usdt) return PrintUsdtListing(options);
  uprobe::ProbeFinder finder(options.binary,
                             uprobe::ResolveOptions{.ifunc_selector = options.ifunc_selector,
                                                    .all = options.all,
                                                    .in_library = options.in_library,
                                                    .debug_root = options.debug_dir},
                             options.string_arguments);
  if (options.list) {
    absl::StatusOr<uprobe::UprobeResolver*> functions = finder.Functions();
    if (!functions.ok()) return functions.status();
    return PrintListing(**functions, options);
  }
  absl::StatusOr<std::vector<ProbeSite>> sites = finder.FindAll(options.functions);
  if (!sites.ok()) return sites.status();
  if (options.format == "json") {
    return base::WriteToStandardOutput(uprobe::SitesJson(*sites, StyleOf(options)));
  }
  for (const ProbeSite& site : *sites) {
    if (!site.note.empty()) std::fprintf(stderr, "perftk: note: %s\n", site.note.c_str());
  }
  return base::WriteToStandardOutput(FormatText(*sites, options, options.functions.size()));
}

void RegisterUprobeOffsetCommand(CLI::App& app, absl::Status& outcome) {
  auto options = std::make_shared<UprobeOffsetOptions>();
  CLI::App* sub = app.add_subcommand("uprobe-offset", kDescription);
  sub->footer(kFooter);
  sub->add_option("binary", options->binary, "Executable or shared library (ELF)")->required();
  sub->add_option("functions", options->functions,
                  "Function names: NAME, NAME@VER, NAME@@VER, each optionally +OFFSET; "
                  "USDT probes: usdt:PROVIDER:NAME");
  sub->add_flag("--list", options->list,
                "List every function (and PLT stub) with its offset, like `perf probe -F`");
  sub->add_flag("--list-usdt", options->list_usdt,
                "List every USDT probe site: offset, provider:name, the note's location, base "
                "and semaphore, the semaphore's offset (ref_ctr) and the argument specs");
  sub->add_option("--format", options->format, "Output format")
      ->capture_default_str()
      ->check(CLI::IsMember({"hex", "uprobe-events", "json"}));
  sub->add_flag_callback(
      "--json", [options] { options->format = "json"; }, "Same as --format=json");
  sub->add_option("--string", options->string_arguments,
                  "With usdt: probes: read argument N (from 1) as the C string it points to "
                  "(+0(LOCATION):string); repeatable")
      ->allow_extra_args(false);
  sub->add_flag("--return", options->return_probe,
                "With --format=uprobe-events: a return probe (r:) instead of an entry probe");
  sub->add_option("--group", options->group, "Event group for --format=uprobe-events")
      ->capture_default_str();
  sub->add_flag("--all", options->all,
                "Print every function of an ambiguous name, every site of a USDT probe");
  sub->add_flag("--ifunc-selector", options->ifunc_selector,
                "Allow a probe on an IFUNC's selector (runs at binding time, not per call)");
  sub->add_flag("--in-library", options->in_library,
                "For an imported function, resolve it in the library that defines it "
                "(DT_NEEDED, RUNPATH/RPATH, standard paths) instead of the PLT stub");
  sub->add_option("--debug-dir", options->debug_dir,
                  "Root of separate debug files (holds .build-id/)")
      ->capture_default_str();
  sub->callback([options, &outcome] { outcome = RunUprobeOffset(*options); });
}

}  // namespace perftk::cli
