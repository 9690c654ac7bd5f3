#include "uprobe/probe_text.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/json.h"

namespace perftk::uprobe {
namespace {

using base::JsonString;

// The query as a tracefs event name: letters, digits and single '_'s, not
// starting with a digit.
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
                            const EventStyle& style) {
  std::string line = absl::StrFormat("%c:%s/%s %s:0x%x", style.return_probe ? 'r' : 'p',
                                     style.group, event, site.path, site.offset);
  if (site.ref_ctr_offset != 0) absl::StrAppendFormat(&line, "(0x%x)", site.ref_ctr_offset);
  return line + FetchArguments(site);
}

std::string JsonArguments(const ProbeSite& site) {
  std::vector<std::string> objects;
  for (const UsdtArgument& argument : site.arguments) {
    objects.push_back(absl::StrCat("{\"spec\": ", JsonString(argument.spec), ", ",
                                   argument.fetch.empty()
                                       ? absl::StrCat("\"problem\": ", JsonString(argument.problem))
                                       : absl::StrCat("\"fetch\": ", JsonString(argument.fetch)),
                                   "}"));
  }
  return absl::StrCat("[", absl::StrJoin(objects, ", "), "]");
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

}  // namespace

std::string HexLines(const std::vector<ProbeSite>& sites, bool name_each) {
  std::string out;
  for (const ProbeSite& s : sites) {
    if (name_each) absl::StrAppend(&out, s.query, " ");
    absl::StrAppendFormat(&out, "0x%x", s.offset);
    if (s.ref_ctr_offset != 0) absl::StrAppendFormat(&out, " ref_ctr=0x%x", s.ref_ctr_offset);
    absl::StrAppend(&out, FetchArguments(s), "\n");
  }
  return out;
}

std::string UprobeEventLines(const std::vector<ProbeSite>& sites, const EventStyle& style) {
  const std::vector<std::string> events = EventNames(sites, style.return_probe);
  std::string out;
  for (size_t i = 0; i < sites.size(); ++i) {
    absl::StrAppend(&out, UprobeEventLine(sites[i], events[i], style), "\n");
  }
  return out;
}

std::string SitesJson(const std::vector<ProbeSite>& sites, const EventStyle& style) {
  const std::vector<std::string> events = EventNames(sites, style.return_probe);
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
                    ", \"uprobe_event\": ", JsonString(UprobeEventLine(s, events[i], style)));
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

// Written into one buffer sized up front: a listing has tens of thousands
// of lines.
std::string FunctionListing(const std::vector<ListedSite>& sites) {
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

std::string UsdtListing(const std::vector<UsdtProbe>& probes) {
  std::string out;
  for (const UsdtProbe& p : probes) {
    absl::StrAppendFormat(&out, "0x%08x  %s  location=0x%x base=0x%x semaphore=0x%x ref_ctr=0x%x",
                          p.offset, p.FullName(), p.note.location, p.note.base, p.note.semaphore,
                          p.semaphore_offset);
    absl::StrAppend(&out, p.note.arguments.empty() ? "" : "  ", p.note.arguments, "\n");
  }
  return out;
}

}  // namespace perftk::uprobe
