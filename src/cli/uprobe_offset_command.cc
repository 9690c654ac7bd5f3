#include "cli/uprobe_offset_command.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "base/json.h"
#include "base/output_file.h"
#include "cli/usage.h"
#include "cli/warnings.h"
#include "elf/uprobe_resolver.h"
#include "elf/usdt_resolver.h"

namespace perftk::cli {
namespace {

using base::JsonString;

using elf::ListedSite;
using elf::ProbeSite;

constexpr char kDescription[] =
    "Print the file offset where a uprobe for a function goes (what\n"
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

std::string EventName(const std::string& query, bool return_probe) {
  std::string name;
  for (char c : query) {
    const bool keep = absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_';
    if (keep) {
      name.push_back(c);
    } else if (!name.empty() && name.back() != '_') {
      name.push_back('_');
    }
  }
  while (!name.empty() && name.back() == '_') name.pop_back();
  if (name.empty() || absl::ascii_isdigit(static_cast<unsigned char>(name[0]))) {
    name.insert(0, "f_");
  }
  if (return_probe) name += "__return";
  return name;
}

// " arg1=FETCH arg2=FETCH ...", for the arguments fetch-args can express
// (their numbers kept).
std::string FetchArguments(const ProbeSite& site) {
  std::string out;
  for (size_t i = 0; i < site.arguments.size(); ++i) {
    if (!site.arguments[i].fetch.empty()) {
      absl::StrAppend(&out, " arg", i + 1, "=", site.arguments[i].fetch);
    }
  }
  return out;
}

std::string UprobeEventLine(const ProbeSite& site, const std::string& event,
                            const UprobeOffsetOptions& options) {
  std::string line = absl::StrFormat("%c:%s/%s %s:0x%x", options.return_probe ? 'r' : 'p',
                                     options.group, event, site.path, site.offset);
  if (site.ref_ctr_offset != 0) absl::StrAppendFormat(&line, "(0x%x)", site.ref_ctr_offset);
  return line + FetchArguments(site);
}

std::string JsonArguments(const ProbeSite& site) {
  std::vector<std::string> objects;
  for (const elf::UsdtArgument& argument : site.arguments) {
    objects.push_back(absl::StrCat("{\"spec\": ", JsonString(argument.spec), ", ",
                                   argument.fetch.empty()
                                       ? absl::StrCat("\"problem\": ", JsonString(argument.problem))
                                       : absl::StrCat("\"fetch\": ", JsonString(argument.fetch)),
                                   "}"));
  }
  return absl::StrCat("[", absl::StrJoin(objects, ", "), "]");
}

// Event names, made unique when --all yields several sites for one name.
std::vector<std::string> EventNames(const std::vector<ProbeSite>& sites, bool return_probe) {
  absl::flat_hash_map<std::string, int> used;
  std::vector<std::string> names;
  for (const ProbeSite& site : sites) {
    std::string name = EventName(site.query.empty() ? site.symbol : site.query, return_probe);
    const int count = ++used[name];
    if (count > 1) absl::StrAppend(&name, "_", count);
    names.push_back(std::move(name));
  }
  return names;
}

std::string FormatJson(const std::vector<ProbeSite>& sites, const UprobeOffsetOptions& options) {
  const std::vector<std::string> events = EventNames(sites, options.return_probe);
  std::vector<std::string> objects;
  for (size_t i = 0; i < sites.size(); ++i) {
    const ProbeSite& s = sites[i];
    std::string object = "{";
    if (!s.query.empty()) absl::StrAppend(&object, "\"query\": ", JsonString(s.query), ", ");
    absl::StrAppend(&object, "\"symbol\": ", JsonString(s.symbol),
                    ", \"path\": ", JsonString(s.path),
                    absl::StrFormat(", \"offset\": \"0x%x\", \"address\": \"0x%x\", \"size\": %d",
                                    s.offset, s.address, s.size),
                    ", \"binding\": ", JsonString(s.binding), ", \"type\": ", JsonString(s.type),
                    ", \"section\": ", JsonString(s.section), ", \"table\": ", JsonString(s.table),
                    ", \"uprobe_event\": ", JsonString(UprobeEventLine(s, events[i], options)));
    if (s.type == "usdt") {
      absl::StrAppendFormat(&object, ", \"ref_ctr_offset\": \"0x%x\"", s.ref_ctr_offset);
      absl::StrAppend(&object, ", \"arguments\": ", JsonArguments(s));
    }
    if (!s.note.empty()) absl::StrAppend(&object, ", \"note\": ", JsonString(s.note));
    object += "}";
    objects.push_back(std::move(object));
  }
  return absl::StrCat("[\n  ", absl::StrJoin(objects, ",\n  "), "\n]\n");
}

std::string FormatText(const std::vector<ProbeSite>& sites, const UprobeOffsetOptions& options,
                       size_t queries) {
  std::string out;
  if (options.format == "uprobe-events") {
    const std::vector<std::string> events = EventNames(sites, options.return_probe);
    for (size_t i = 0; i < sites.size(); ++i) {
      absl::StrAppend(&out, UprobeEventLine(sites[i], events[i], options), "\n");
    }
    return out;
  }
  for (const ProbeSite& s : sites) {
    if (queries != 1 || sites.size() != 1) absl::StrAppend(&out, s.query, " ");
    absl::StrAppendFormat(&out, "0x%x", s.offset);
    if (s.ref_ctr_offset != 0) absl::StrAppendFormat(&out, " ref_ctr=0x%x", s.ref_ctr_offset);
    absl::StrAppend(&out, FetchArguments(s), "\n");
  }
  return out;
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

// Writes `value` in lower-case hex, zero-padded to at least 8 digits, at
// `out` (room for 16); returns the end.
char* WriteHex8(char* out, uint64_t value) {
  char digits[16];
  int count = 0;
  do {
    digits[count++] = "0123456789abcdef"[value & 0xf];
    value >>= 4;
  } while (value != 0);
  for (int i = count; i < 8; ++i) *out++ = '0';
  while (count > 0) *out++ = digits[--count];
  return out;
}

// "0x%08x  SYMBOL" lines, the way `perf probe -F` lists names, written into
// one buffer sized up front: a listing has tens of thousands of lines.
std::string FormatListing(const std::vector<ListedSite>& sites) {
  constexpr size_t kMaxLineWithoutSymbol = 2 + 16 + 2 + 1;  // "0x", hex, "  ", "\n"
  size_t capacity = 0;
  for (const ListedSite& site : sites) capacity += kMaxLineWithoutSymbol + site.SymbolLength();
  std::string out(capacity, '\0');
  char* end = out.data();
  for (const ListedSite& site : sites) {
    *end++ = '0';
    *end++ = 'x';
    end = WriteHex8(end, site.offset);
    *end++ = ' ';
    *end++ = ' ';
    end = site.WriteSymbol(end);
    *end++ = '\n';
  }
  out.resize(static_cast<size_t>(end - out.data()));
  return out;
}

// --list: every function with an offset; the others are warned about.
absl::Status PrintListing(elf::UprobeResolver& resolver, const UprobeOffsetOptions& options) {
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
    return base::WriteToStandardOutput(FormatListing(usable));
  }
  std::vector<ProbeSite> sites;
  sites.reserve(usable.size());
  for (const ListedSite& site : usable) {
    sites.push_back(site.ToProbeSite());
    sites.back().path = resolver.path();
  }
  return base::WriteToStandardOutput(options.format == "json" ? FormatJson(sites, options)
                                                              : FormatText(sites, options, 0));
}

// "0x%08x  PROVIDER:NAME  location=.. base=.. semaphore=.. ref_ctr=..  ARGS"
// per note: the note's own numbers (as readelf -n prints them), the probe's
// file offset first.
std::string FormatUsdtListing(const std::vector<elf::UsdtProbe>& probes) {
  std::string out;
  for (const elf::UsdtProbe& p : probes) {
    absl::StrAppendFormat(&out, "0x%08x  %s  location=0x%x base=0x%x semaphore=0x%x ref_ctr=0x%x",
                          p.offset, p.FullName(), p.note.location, p.note.base, p.note.semaphore,
                          p.semaphore_offset);
    absl::StrAppend(&out, p.note.arguments.empty() ? "" : "  ", p.note.arguments, "\n");
  }
  return out;
}

// --list-usdt: every USDT probe site of the binary.
absl::Status PrintUsdtListing(const UprobeOffsetOptions& options) {
  absl::StatusOr<std::unique_ptr<elf::UsdtResolver>> resolver =
      elf::UsdtResolver::Open(options.binary);
  if (!resolver.ok()) return resolver.status();
  if (options.format == "hex")
    return base::WriteToStandardOutput(FormatUsdtListing((*resolver)->probes()));
  const std::vector<ProbeSite> sites = (*resolver)->Sites();
  if (options.format == "json") return base::WriteToStandardOutput(FormatJson(sites, options));
  for (const ProbeSite& site : sites) {
    if (!site.note.empty()) {
      std::fprintf(stderr, "perftk: note: %s\n", site.note.c_str());
    }
  }
  return base::WriteToStandardOutput(FormatText(sites, options, 0));
}

// The resolvers a run needs, opened on first use.
struct Resolvers {
  const UprobeOffsetOptions& options;
  std::unique_ptr<elf::UprobeResolver> functions;
  std::unique_ptr<elf::UsdtResolver> usdt;

  absl::StatusOr<std::vector<ProbeSite>> Resolve(const std::string& query) {
    absl::string_view probe = query;
    if (absl::ConsumePrefix(&probe, "usdt:")) {
      if (usdt == nullptr) {
        absl::StatusOr<std::unique_ptr<elf::UsdtResolver>> opened =
            elf::UsdtResolver::Open(options.binary);
        if (!opened.ok()) return opened.status();
        usdt = std::move(*opened);
      }
      return usdt->Resolve(probe, options.all, options.string_arguments);
    }
    if (absl::Status s = OpenFunctions(); !s.ok()) return s;
    return functions->Resolve(query);
  }

  absl::Status OpenFunctions() {
    if (functions != nullptr) return absl::OkStatus();
    elf::ResolveOptions resolve;
    resolve.ifunc_selector = options.ifunc_selector;
    resolve.all = options.all;
    resolve.in_library = options.in_library;
    resolve.debug_root = options.debug_dir;
    absl::StatusOr<std::unique_ptr<elf::UprobeResolver>> opened =
        elf::UprobeResolver::Open(options.binary, resolve);
    if (!opened.ok()) return opened.status();
    functions = std::move(*opened);
    return absl::OkStatus();
  }
};

absl::StatusOr<std::vector<ProbeSite>> Collect(Resolvers& resolver,
                                               const UprobeOffsetOptions& options) {
  std::vector<ProbeSite> sites;
  std::vector<std::string> errors;
  for (const std::string& function : options.functions) {
    absl::StatusOr<std::vector<ProbeSite>> found = resolver.Resolve(function);
    if (!found.ok()) {
      errors.emplace_back(found.status().message());
      continue;
    }
    for (ProbeSite& site : *found) sites.push_back(std::move(site));
  }
  if (!errors.empty()) return absl::NotFoundError(absl::StrJoin(errors, "\nperftk: "));
  return sites;
}

}  // namespace

absl::Status RunUprobeOffset(const UprobeOffsetOptions& options) {
  if (absl::Status s = CheckOptions(options); !s.ok()) return s;
  if (options.list_usdt) return PrintUsdtListing(options);
  Resolvers resolvers{options, nullptr, nullptr};
  if (options.list) {
    if (absl::Status s = resolvers.OpenFunctions(); !s.ok()) return s;
    return PrintListing(*resolvers.functions, options);
  }
  absl::StatusOr<std::vector<ProbeSite>> sites = Collect(resolvers, options);
  if (!sites.ok()) return sites.status();
  if (options.format == "json") return base::WriteToStandardOutput(FormatJson(*sites, options));
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
