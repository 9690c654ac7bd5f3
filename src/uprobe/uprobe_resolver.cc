#include "uprobe/uprobe_resolver.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <filesystem>
#include <map>
#include <optional>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "elf/debug_files.h"
#include "uprobe/address_map.h"
#include "uprobe/library_search.h"

namespace perftk::uprobe {

struct UprobeResolver::Binary {
  std::string path;  // absolute
  std::unique_ptr<elf::ElfFile> file;
  std::unique_ptr<elf::ElfFile> debug;  // separate debug file or MiniDebugInfo, may be null
  SymbolIndex index;
  std::optional<absl::StatusOr<PltStubs>> stubs;

  const absl::StatusOr<PltStubs>& Stubs() {
    if (!stubs.has_value()) stubs = FindPltStubs(*file);
    return *stubs;
  }
};

namespace {

constexpr size_t kMaxLibraries = 256;

std::string BindingName(uint8_t bind) {
  switch (bind) {
    case STB_GLOBAL:
      return "global";
    case STB_WEAK:
      return "weak";
    case STB_LOCAL:
      return "local";
    case STB_GNU_UNIQUE:
      return "unique";
    default:
      return absl::StrCat("binding ", bind);
  }
}

std::string TypeName(uint8_t type) { return type == STT_GNU_IFUNC ? "ifunc" : "func"; }

bool VersionMatches(const FunctionSymbol& symbol, const Query& query) {
  if (query.version.empty()) return true;
  if (symbol.version != query.version) return false;
  return !query.default_version_only || symbol.default_version;
}

// Symbols of one name that share an address: one function.
struct Match {
  uint64_t value = 0;
  std::vector<const FunctionSymbol*> members;

  bool weak() const {
    return std::all_of(members.begin(), members.end(),
                       [](const FunctionSymbol* s) { return s->bind == STB_WEAK; });
  }
  bool ifunc() const {
    return std::any_of(members.begin(), members.end(),
                       [](const FunctionSymbol* s) { return s->type == STT_GNU_IFUNC; });
  }
  uint64_t size() const {
    uint64_t size = 0;
    for (const FunctionSymbol* s : members) size = std::max(size, s->size);
    return size;
  }
  // The member to report: a binary's own symbol first, non-weak first.
  const FunctionSymbol& representative() const {
    const FunctionSymbol* best = members.front();
    auto rank = [](const FunctionSymbol* s) {
      return (s->from_binary ? 0 : 2) + (s->bind == STB_WEAK ? 1 : 0);
    };
    for (const FunctionSymbol* s : members) {
      if (rank(s) < rank(best)) best = s;
    }
    return *best;
  }
};

// Candidates with the query's version rule applied. An unversioned query
// takes the default version when the name has one, as ld.so binds.
std::vector<const FunctionSymbol*> FilterByVersion(std::vector<const FunctionSymbol*> found,
                                                   const Query& query) {
  std::vector<const FunctionSymbol*> kept;
  for (const FunctionSymbol* s : found) {
    if (VersionMatches(*s, query)) kept.push_back(s);
  }
  if (!query.version.empty()) return kept;
  const bool has_default = std::any_of(kept.begin(), kept.end(), [](const FunctionSymbol* s) {
    return !s->version.empty() && s->default_version;
  });
  if (!has_default) return kept;
  std::vector<const FunctionSymbol*> defaults;
  for (const FunctionSymbol* s : kept) {
    if (s->version.empty() || s->default_version) defaults.push_back(s);
  }
  return defaults;
}

// The functions of `named` that the version rule left out and that sit at
// an address none of `chosen` has; only for a query without a version.
std::vector<const FunctionSymbol*> OtherVersions(const std::vector<const FunctionSymbol*>& named,
                                                 const std::vector<const FunctionSymbol*>& chosen,
                                                 const Query& query) {
  std::vector<const FunctionSymbol*> others;
  if (!query.version.empty()) return others;
  for (const FunctionSymbol* s : named) {
    const bool elsewhere = std::none_of(chosen.begin(), chosen.end(), [s](const FunctionSymbol* c) {
      return c == s || c->value == s->value;
    });
    const bool seen = std::any_of(others.begin(), others.end(),
                                  [s](const FunctionSymbol* o) { return o->value == s->value; });
    if (elsewhere && !seen) others.push_back(s);
  }
  return others;
}

std::vector<Match> GroupByAddress(const std::vector<const FunctionSymbol*>& symbols) {
  std::map<uint64_t, Match> by_value;
  for (const FunctionSymbol* s : symbols) {
    Match& match = by_value[s->value];
    match.value = s->value;
    match.members.push_back(s);
  }
  std::vector<Match> matches;
  for (auto& [value, match] : by_value) matches.push_back(std::move(match));
  return matches;
}

std::vector<Match> DropWeakWhenStrongExists(std::vector<Match> matches) {
  const bool has_strong =
      std::any_of(matches.begin(), matches.end(), [](const Match& m) { return !m.weak(); });
  if (!has_strong) return matches;
  std::vector<Match> strong;
  for (Match& m : matches) {
    if (!m.weak()) strong.push_back(std::move(m));
  }
  return strong;
}

std::string DescribeMatch(const Match& match) {
  const FunctionSymbol& s = match.representative();
  std::vector<std::string> names;
  for (const FunctionSymbol* member : match.members) {
    std::string name = member->DisplayName();
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  return absl::StrFormat("  %s: address 0x%x, size %d, %s %s, section %s, from %s",
                         absl::StrJoin(names, " = "), match.value, match.size(),
                         BindingName(s.bind), TypeName(s.type), s.section, s.table);
}

std::string IfuncImplementations(const SymbolIndex& index, const std::string& name,
                                 uint64_t selector) {
  const std::string prefixes[] = {absl::StrCat("__", name, "_"), absl::StrCat(name, "_")};
  std::map<std::string, uint64_t> found;
  for (const FunctionSymbol& s : index.symbols()) {
    if (s.type != STT_FUNC || s.value == selector || absl::StrContains(s.name, "_chk")) continue;
    for (const std::string& prefix : prefixes) {
      if (absl::StartsWith(s.name, prefix)) found.emplace(std::string(s.name), s.value);
    }
  }
  if (found.empty()) {
    return "No implementation was found by name (pattern __NAME_*); they are usually local "
           "symbols: install the library's debug symbols (e.g. libc6-dbg) to see them.";
  }
  std::vector<std::string> lines;
  for (const auto& [impl, value] : found)
    lines.push_back(absl::StrFormat("  %s (0x%x)", impl, value));
  return absl::StrCat("Implementations found by name; probe the ones you care about:\n",
                      absl::StrJoin(lines, "\n"));
}

absl::StatusOr<uint64_t> FileOffsetOf(const elf::ElfFile& file, const FunctionSymbol& symbol,
                                      uint64_t delta) {
  const elf::Section* hint = nullptr;
  if (symbol.from_binary && symbol.section_index < file.sections().size()) {
    hint = &file.sections()[symbol.section_index];
  }
  return CodeAddressToFileOffset(file, symbol.value + delta, hint);
}

// The first 8 bytes of a name as a big-endian number, zero-padded: two
// prefixes compare as their names do, unless they are equal.
uint64_t NamePrefix(absl::string_view name) {
  uint64_t prefix = 0;
  for (size_t i = 0; i < 8; ++i) {
    prefix <<= 8;
    if (i < name.size()) prefix |= static_cast<unsigned char>(name[i]);
  }
  return prefix;
}

absl::Status CheckOffsetInside(const std::string& path, const Query& query, const Match& match) {
  if (query.offset == 0) return absl::OkStatus();
  const uint64_t size = match.size();
  if (size == 0) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: '%s': %s has no size in the symbol table, so +0x%x cannot be checked",
                        path, query.text, query.name, query.offset));
  }
  if (query.offset >= size) {
    return absl::OutOfRangeError(
        absl::StrFormat("%s: '%s': offset 0x%x is past the end of %s (size 0x%x)", path, query.text,
                        query.offset, query.name, size));
  }
  return absl::OkStatus();
}

}  // namespace

UprobeResolver::~UprobeResolver() = default;

const std::string& UprobeResolver::path() const { return main_->path; }

absl::StatusOr<std::unique_ptr<UprobeResolver::Binary>> UprobeResolver::LoadBinary(
    const std::string& path, const std::string& debug_root) {
  auto binary = std::make_unique<Binary>();
  binary->path = elf::AbsolutePath(path);
  absl::StatusOr<std::unique_ptr<elf::ElfFile>> file = elf::ElfFile::Open(path);
  if (!file.ok()) return file.status();
  binary->file = *std::move(file);
  if (binary->file->segments().empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path,
                     ": has no program headers (a relocatable object or a debug-only file?); "
                     "uprobes go on the executable or shared library that is mapped at run time"));
  }
  if (absl::Status s = binary->index.AddTables(*binary->file, /*from_binary=*/true); !s.ok()) {
    return s;
  }
  if (binary->index.has_symtab()) return binary;
  absl::StatusOr<std::unique_ptr<elf::ElfFile>> debug =
      elf::FindDebugFile(*binary->file, debug_root);
  if (!debug.ok()) return debug.status();
  if (*debug == nullptr) {
    debug = elf::OpenMiniDebugInfo(*binary->file);
    if (!debug.ok()) return debug.status();
  }
  if (*debug != nullptr) {
    binary->debug = *std::move(debug);
    const std::string label = absl::StrCat(binary->debug->path(), ":.symtab");
    if (absl::Status s = binary->index.AddSymtab(*binary->debug, label); !s.ok()) return s;
  }
  return binary;
}

absl::StatusOr<std::unique_ptr<UprobeResolver>> UprobeResolver::Open(
    const std::string& path, const ResolveOptions& options) {
  std::unique_ptr<UprobeResolver> resolver(new UprobeResolver());
  resolver->options_ = options;
  absl::StatusOr<std::unique_ptr<Binary>> binary = LoadBinary(path, options.debug_root);
  if (!binary.ok()) return binary.status();
  resolver->main_ = *std::move(binary);
  return resolver;
}

absl::StatusOr<std::vector<ProbeSite>> UprobeResolver::Resolve(absl::string_view text) {
  absl::StatusOr<Query> query = ParseQuery(text);
  if (!query.ok()) return query.status();
  absl::StatusOr<std::vector<ProbeSite>> defined = ResolveDefined(*main_, *query);
  if (defined.ok() || !absl::IsNotFound(defined.status())) return defined;
  if (main_->index.FindImport(query->name).empty()) {
    if (!main_->index.Find(query->name).empty()) return defined.status();
    return NotFound(*main_, *query);
  }
  return ResolveImport(*main_, *query);
}

absl::StatusOr<std::vector<ProbeSite>> UprobeResolver::ResolveDefined(const Binary& binary,
                                                                      const Query& query) {
  std::vector<const FunctionSymbol*> named = binary.index.Find(query.name);
  if (named.empty()) {
    return absl::NotFoundError(absl::StrCat(binary.path, ": no function '", query.name, "'"));
  }
  std::vector<const FunctionSymbol*> candidates = FilterByVersion(named, query);
  if (candidates.empty()) {
    std::vector<std::string> versions;
    for (const FunctionSymbol* s : named) {
      std::string version = s->DisplayName();
      if (std::find(versions.begin(), versions.end(), version) == versions.end()) {
        versions.push_back(std::move(version));
      }
    }
    return absl::NotFoundError(absl::StrCat(binary.path, ": '", query.text,
                                            "' matches no version; the file has ",
                                            absl::StrJoin(versions, ", ")));
  }
  // Other versions of the name at other addresses (realpath@GLIBC_2.2.5
  // beside the default realpath@@GLIBC_2.3): binaries linked against an
  // older library call those. Named in a note, or probed too with --all.
  std::vector<const FunctionSymbol*> other_versions = OtherVersions(named, candidates, query);
  if (options_.all) {
    candidates.insert(candidates.end(), other_versions.begin(), other_versions.end());
    other_versions.clear();
  }
  std::vector<Match> matches = DropWeakWhenStrongExists(GroupByAddress(candidates));
  if (matches.size() > 1 && !options_.all) {
    std::vector<std::string> lines;
    for (const Match& m : matches) lines.push_back(DescribeMatch(m));
    return absl::FailedPreconditionError(
        absl::StrCat(binary.path, ": '", query.text, "' is ambiguous: ", matches.size(),
                     " different functions have this name:\n", absl::StrJoin(lines, "\n"),
                     "\nUse a versioned name (NAME@VERSION) if they differ in version, or --all to "
                     "probe every one."));
  }
  std::vector<ProbeSite> sites;
  for (const Match& match : matches) {
    const FunctionSymbol& symbol = match.representative();
    if (match.ifunc() && !options_.ifunc_selector) {
      return absl::FailedPreconditionError(absl::StrFormat(
          "%s: '%s' is an IFUNC (STT_GNU_IFUNC) at 0x%x: that address is its selector, which "
          "runs once when the symbol is bound and returns the implementation used for every "
          "call, so a probe there does not count calls. Pass --ifunc-selector to probe the "
          "selector anyway.\n%s",
          binary.path, query.text, match.value,
          IfuncImplementations(binary.index, query.name, match.value)));
    }
    if (absl::Status s = CheckOffsetInside(binary.path, query, match); !s.ok()) return s;
    absl::StatusOr<uint64_t> offset = FileOffsetOf(*binary.file, symbol, query.offset);
    if (!offset.ok()) return offset.status();
    ProbeSite site;
    site.query = query.text;
    site.path = binary.path;
    site.symbol = symbol.DisplayName();
    site.address = match.value + query.offset;
    site.offset = *offset;
    site.size = match.size();
    site.binding = BindingName(symbol.bind);
    site.type = TypeName(symbol.type);
    site.section = std::string(symbol.section);
    site.table = std::string(symbol.table);
    if (match.ifunc()) {
      site.note = "probing an IFUNC selector: it runs when the symbol is bound, not per call";
    }
    if (!other_versions.empty()) {
      std::vector<std::string> others;
      for (const FunctionSymbol* s : other_versions) {
        others.push_back(absl::StrFormat("%s at 0x%x", s->DisplayName(), s->value));
      }
      absl::StrAppend(&site.note, site.note.empty() ? "" : "; ", "the default version ",
                      site.symbol,
                      " was chosen; other versions are elsewhere: ", absl::StrJoin(others, ", "),
                      " (binaries linked against an older library call them): name one "
                      "(NAME@VERSION), or --all for every one");
    }
    sites.push_back(std::move(site));
  }
  return sites;
}

absl::StatusOr<std::vector<ProbeSite>> UprobeResolver::ResolveImport(Binary& binary,
                                                                     const Query& query) {
  std::vector<const ImportedSymbol*> imports = binary.index.FindImport(query.name);
  const ImportedSymbol* import = nullptr;
  for (const ImportedSymbol* candidate : imports) {
    if (query.version.empty() || candidate->version == query.version) import = candidate;
  }
  if (import == nullptr) {
    return absl::NotFoundError(absl::StrCat(binary.path, ": imports '", query.name,
                                            "' but not version '", query.version, "'"));
  }
  if (options_.in_library) return ResolveInLibrary(query, *import);
  const std::string library =
      import->library.empty() ? "its library" : std::string(import->library);
  if (query.offset != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        binary.path, ": '", query.text, "': ", query.name,
        " is imported; +OFFSET needs the function body, use --in-library to probe it in ",
        library));
  }
  const absl::StatusOr<PltStubs>& stubs = binary.Stubs();
  if (!stubs.ok()) return stubs.status();
  uint64_t stub_address = 0;
  const elf::Section* section = nullptr;
  if (auto found = stubs->find(import->dynsym_index); found != stubs->end()) {
    stub_address = found->second.vaddr;
    section = found->second.section;
  } else if (import->value != 0) {
    stub_address = import->value;  // canonical PLT entry of a non-PIE program
  } else {
    return absl::FailedPreconditionError(absl::StrCat(
        binary.path, ": ", query.name, " is imported from ", library,
        " but this file has no PLT stub for it (built with -fno-plt, or never called: calls go "
        "straight through the GOT). Use --in-library to probe ",
        query.name, " in ", library, "."));
  }
  absl::StatusOr<uint64_t> offset = CodeAddressToFileOffset(*binary.file, stub_address, section);
  if (!offset.ok()) return offset.status();
  if (section == nullptr) section = binary.file->SectionContaining(stub_address);
  ProbeSite site;
  site.query = query.text;
  site.path = binary.path;
  site.symbol = absl::StrCat(query.name, "@plt");
  site.address = stub_address;
  site.offset = *offset;
  site.binding = "global";
  site.type = "plt";
  site.section = section != nullptr ? section->name : "";
  site.table = ".dynsym (import)";
  site.note = absl::StrCat(query.name, " is imported from ", library, "; this is its PLT stub in ",
                           binary.path,
                           ": the probe sees only calls made from this file. Use --in-library "
                           "to probe every call.");
  return std::vector<ProbeSite>{std::move(site)};
}

absl::StatusOr<std::vector<ProbeSite>> UprobeResolver::ResolveInLibrary(
    const Query& query, const ImportedSymbol& import) {
  Query wanted = query;
  if (wanted.version.empty()) wanted.version = std::string(import.version);
  struct Pending {
    const elf::ElfFile* requester;
    std::string soname;
  };
  std::deque<Pending> queue;
  absl::StatusOr<DynamicInfo> info = ReadDynamicInfo(*main_->file);
  if (!info.ok()) return info.status();
  for (const std::string& soname : info->needed) queue.push_back({main_->file.get(), soname});
  absl::flat_hash_set<std::string> seen;
  std::vector<std::string> searched;
  std::vector<std::string> missing;
  while (!queue.empty() && seen.size() < kMaxLibraries) {
    Pending next = queue.front();
    queue.pop_front();
    if (!seen.insert(next.soname).second) continue;
    absl::StatusOr<DynamicInfo> requester_info = ReadDynamicInfo(*next.requester);
    if (!requester_info.ok()) return requester_info.status();
    std::optional<std::string> path = FindLibrary(
        *next.requester, LibrarySearchPath(*next.requester, *requester_info), next.soname);
    if (!path.has_value()) {
      missing.push_back(next.soname);
      continue;
    }
    std::unique_ptr<Binary>& library = libraries_[*path];
    if (library == nullptr) {
      absl::StatusOr<std::unique_ptr<Binary>> loaded = LoadBinary(*path, options_.debug_root);
      if (!loaded.ok()) return loaded.status();
      library = *std::move(loaded);
    }
    searched.push_back(library->path);
    absl::StatusOr<std::vector<ProbeSite>> sites = ResolveDefined(*library, wanted);
    if (sites.ok()) {
      for (ProbeSite& site : *sites) site.query = query.text;
      return sites;
    }
    if (!absl::IsNotFound(sites.status())) return sites.status();
    absl::StatusOr<DynamicInfo> library_info = ReadDynamicInfo(*library->file);
    if (!library_info.ok()) return library_info.status();
    for (const std::string& soname : library_info->needed) {
      queue.push_back({library->file.get(), soname});
    }
  }
  std::string message =
      absl::StrCat(main_->path, ": ", query.name, " is imported, but no library it loads defines '",
                   wanted.name, wanted.version.empty() ? "" : "@", wanted.version,
                   "'; searched: ", searched.empty() ? "(none)" : absl::StrJoin(searched, ", "));
  if (!missing.empty()) absl::StrAppend(&message, "; not found: ", absl::StrJoin(missing, ", "));
  return absl::NotFoundError(message);
}

absl::Status UprobeResolver::NotFound(const Binary& binary, const Query& query) const {
  std::string message =
      absl::StrCat(binary.path, ": no function named '", query.name, "' (searched ",
                   binary.index.has_symtab() ? ".dynsym and .symtab" : ".dynsym only");
  if (binary.debug != nullptr) absl::StrAppend(&message, ", ", binary.debug->path());
  absl::StrAppend(&message, ")");
  if (!binary.index.has_symtab()) {
    absl::StrAppend(&message,
                    "; the file is stripped and no debug file was found by build id, "
                    ".gnu_debuglink or .gnu_debugdata");
  }
  std::vector<std::string> close = binary.index.CloseNames(query.name, 5);
  if (!close.empty())
    absl::StrAppend(&message, ". Did you mean: ", absl::StrJoin(close, ", "), "?");
  return absl::NotFoundError(message);
}

size_t ListedSite::SymbolLength() const {
  if (function == nullptr) return imported_name.size() + 4;
  const FunctionSymbol& f = *function;
  if (f.version.empty()) return f.name.size();
  return f.name.size() + (f.default_version ? 2 : 1) + f.version.size();
}

char* ListedSite::WriteSymbol(char* out) const {
  auto put = [&out](absl::string_view text) {
    std::memcpy(out, text.data(), text.size());
    out += text.size();
  };
  if (function == nullptr) {
    put(imported_name);
    put("@plt");
  } else {
    put(function->name);
    if (!function->version.empty()) {
      put(function->default_version ? "@@" : "@");
      put(function->version);
    }
  }
  return out;
}

void ListedSite::AppendSymbol(std::string* out) const {
  const size_t start = out->size();
  out->resize(start + SymbolLength());
  WriteSymbol(out->data() + start);
}

std::string ListedSite::Symbol() const {
  std::string symbol;
  AppendSymbol(&symbol);
  return symbol;
}

ProbeSite ListedSite::ToProbeSite() const {
  ProbeSite site;
  site.symbol = Symbol();
  site.address = address;
  site.offset = offset;
  site.section = std::string(section);
  site.note = note;
  if (function != nullptr) {
    site.size = function->size;
    site.binding = BindingName(function->bind);
    site.type = TypeName(function->type);
    site.table = std::string(function->table);
  } else {
    site.binding = "global";
    site.type = "plt";
    site.table = ".dynsym (import)";
  }
  return site;
}

absl::StatusOr<std::vector<ListedSite>> UprobeResolver::List() {
  const std::vector<FunctionSymbol>& all = main_->index.symbols();
  struct Entry {
    uint64_t prefix;  // NamePrefix(name): most comparisons end here
    uint32_t index;
  };
  std::vector<Entry> order(all.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = {NamePrefix(all[i].name), i};
  // By name, then address. Of the symbols at one name and address, the one
  // listed is the binary's own before a debug file's, the default version
  // (what plain NAME binds to) before a versionless one before a hidden
  // version, then the first in table order: the listing is deterministic.
  auto version_rank = [](const FunctionSymbol& s) {
    if (!s.default_version) return 2;
    return s.version.empty() ? 1 : 0;
  };
  std::sort(order.begin(), order.end(), [&](const Entry& a, const Entry& b) {
    if (a.prefix != b.prefix) return a.prefix < b.prefix;
    const FunctionSymbol& x = all[a.index];
    const FunctionSymbol& y = all[b.index];
    if (const int c = x.name.compare(y.name); c != 0) return c < 0;
    if (x.value != y.value) return x.value < y.value;
    if (x.from_binary != y.from_binary) return x.from_binary;
    if (version_rank(x) != version_rank(y)) return version_rank(x) < version_rank(y);
    return a.index < b.index;
  });
  std::vector<ListedSite> sites;
  sites.reserve(order.size() + main_->index.imports().size());
  const FunctionSymbol* previous = nullptr;
  for (const Entry& entry : order) {
    const FunctionSymbol& s = all[entry.index];
    if (previous != nullptr && previous->name == s.name && previous->value == s.value) continue;
    previous = &s;
    ListedSite& site = sites.emplace_back();
    site.function = &s;
    site.address = s.value;
    site.section = s.section;
    absl::StatusOr<uint64_t> offset = FileOffsetOf(*main_->file, s, 0);
    if (offset.ok()) {
      site.offset = *offset;
    } else {
      site.note = std::string(offset.status().message());
    }
  }
  const absl::StatusOr<PltStubs>& stubs = main_->Stubs();
  if (stubs.ok()) {
    for (const ImportedSymbol& import : main_->index.imports()) {
      auto found = stubs->find(import.dynsym_index);
      if (found == stubs->end()) continue;
      absl::StatusOr<uint64_t> offset =
          CodeAddressToFileOffset(*main_->file, found->second.vaddr, found->second.section);
      if (!offset.ok()) continue;
      ListedSite& site = sites.emplace_back();
      site.imported_name = import.name;
      site.address = found->second.vaddr;
      site.offset = *offset;
      site.section = found->second.section->name;
    }
  }
  return sites;
}

}  // namespace perftk::uprobe
