#include "uprobe/symbol_index.h"

#include <algorithm>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"
#include "uprobe/near_names.h"

namespace perftk::uprobe {
namespace {

struct VersionName {
  absl::string_view name;  // views into the file's string table
  absl::string_view file;  // for requirements (verneed): the library's soname
};

// .gnu.version, .gnu.version_d and .gnu.version_r of one file.
struct VersionTables {
  std::vector<uint16_t> versym;
  absl::flat_hash_map<uint16_t, VersionName> names;
};

absl::Status ReadVerdef(const elf::ElfFile& file, const elf::Section& section,
                        VersionTables& tables) {
  absl::StatusOr<std::vector<elf::VersionDefinition>> definitions =
      file.VersionDefinitions(section);
  if (!definitions.ok()) return definitions.status();
  for (const elf::VersionDefinition& definition : *definitions) {
    if ((definition.flags & VER_FLG_BASE) != 0) continue;  // the file's own name
    tables.names[definition.index] = {definition.name, ""};
  }
  return absl::OkStatus();
}

absl::Status ReadVerneed(const elf::ElfFile& file, const elf::Section& section,
                         VersionTables& tables) {
  absl::StatusOr<std::vector<elf::VersionRequirement>> requirements =
      file.VersionRequirements(section);
  if (!requirements.ok()) return requirements.status();
  for (const elf::VersionRequirement& requirement : *requirements) {
    tables.names[requirement.index] = {requirement.name, requirement.library};
  }
  return absl::OkStatus();
}

absl::StatusOr<VersionTables> ReadVersionTables(const elf::ElfFile& file) {
  VersionTables tables;
  for (const elf::Section& section : file.sections()) {
    absl::Status status;
    if (section.type == SHT_GNU_versym) {
      absl::StatusOr<std::vector<uint16_t>> indices = file.SymbolVersionIndices(section);
      if (!indices.ok()) return indices.status();
      tables.versym = *std::move(indices);
    } else if (section.type == SHT_GNU_verdef) {
      status = ReadVerdef(file, section, tables);
    } else if (section.type == SHT_GNU_verneed) {
      status = ReadVerneed(file, section, tables);
    }
    if (!status.ok()) return status;
  }
  return tables;
}

constexpr uint16_t kVersymVersion = 0x7fff;
constexpr uint16_t kVersymHidden = 0x8000;

bool IsFunctionType(uint8_t type) { return type == STT_FUNC || type == STT_GNU_IFUNC; }

}  // namespace

std::string FunctionSymbol::DisplayName() const {
  std::string out;
  AppendDisplayName(&out);
  return out;
}

void FunctionSymbol::AppendDisplayName(std::string* out) const {
  out->append(name.data(), name.size());
  if (version.empty()) return;
  out->append(default_version ? "@@" : "@");
  out->append(version.data(), version.size());
}

void SplitVersionedName(absl::string_view raw, absl::string_view* name, absl::string_view* version,
                        bool* default_version) {
  const size_t at = raw.find('@');
  *default_version = true;
  if (at == absl::string_view::npos || at == 0) {
    *name = raw;
    *version = absl::string_view();
    return;
  }
  *name = raw.substr(0, at);
  absl::string_view rest = raw.substr(at + 1);
  *default_version = absl::ConsumePrefix(&rest, "@");
  *version = rest;
}

void SymbolIndex::Link(ChainsByName& chains, std::vector<uint32_t>& next, absl::string_view name,
                       uint32_t entry) {
  next.push_back(kEndOfChain);
  Chain& chain = chains[name];
  if (chain.first == kEndOfChain) {
    chain.first = entry;
  } else {
    next[chain.last] = entry;
  }
  chain.last = entry;
}

absl::Status SymbolIndex::AddTables(const elf::ElfFile& file, bool from_binary) {
  const std::string prefix = from_binary ? "" : absl::StrCat(file.path(), ":");
  for (const elf::Section& section : file.sections()) {
    if (section.type != SHT_DYNSYM && section.type != SHT_SYMTAB) continue;
    if (absl::Status s = AddTable(file, section, absl::StrCat(prefix, section.name), from_binary);
        !s.ok()) {
      return s;
    }
    if (section.type == SHT_SYMTAB) has_symtab_ = true;
  }
  return absl::OkStatus();
}

absl::Status SymbolIndex::AddSymtab(const elf::ElfFile& file, absl::string_view label) {
  const elf::Section* symtab = file.FindSectionByType(SHT_SYMTAB);
  if (symtab == nullptr) return absl::OkStatus();
  has_symtab_ = true;
  return AddTable(file, *symtab, label, /*from_binary=*/false);
}

absl::Status SymbolIndex::AddTable(const elf::ElfFile& file, const elf::Section& table,
                                   absl::string_view label, bool from_binary) {
  if (table.entry_size == 0 || table.link >= file.sections().size()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: symbol table %s at offset 0x%x: bad sh_entsize %d or sh_link %d",
                        file.path(), table.name, table.offset, table.entry_size, table.link));
  }
  const bool dynamic = table.type == SHT_DYNSYM;
  VersionTables versions;
  if (dynamic) {
    absl::StatusOr<VersionTables> read = ReadVersionTables(file);
    if (!read.ok()) return read.status();
    versions = *std::move(read);
  }
  absl::StatusOr<std::vector<elf::Symbol>> entries = file.Symbols(table);
  if (!entries.ok()) return entries.status();
  const size_t count = table.size / table.entry_size;
  const absl::string_view stored_label = labels_.emplace_back(label);
  symbols_.reserve(symbols_.size() + count);
  for (size_t i = 1; i < count; ++i) {
    if (i >= entries->size()) {
      return absl::InvalidArgumentError(
          absl::StrFormat("%s: symbol table %s at offset 0x%x: cannot read symbol %d", file.path(),
                          table.name, table.offset, i));
    }
    const elf::Symbol& sym = (*entries)[i];
    const uint8_t type = sym.type();
    const bool undefined = !sym.defined();
    if (!IsFunctionType(type) && !(dynamic && undefined && type == STT_NOTYPE)) continue;
    if (sym.section_index == SHN_ABS || sym.section_index == SHN_COMMON) continue;
    if (undefined && !dynamic) continue;
    absl::StatusOr<absl::string_view> raw = file.StringViewAt(table.link, sym.name_offset);
    if (!raw.ok()) return raw.status();
    if (raw->empty()) continue;

    absl::string_view name;
    absl::string_view version;
    bool default_version = true;
    absl::string_view library;
    if (dynamic && i < versions.versym.size()) {
      const uint16_t entry = versions.versym[i];
      auto found = versions.names.find(static_cast<uint16_t>(entry & kVersymVersion));
      name = *raw;
      if (found != versions.names.end()) {
        version = found->second.name;
        library = found->second.file;
        default_version = (entry & kVersymHidden) == 0;
      }
    } else {
      SplitVersionedName(*raw, &name, &version, &default_version);
    }

    if (undefined) {
      imports_.push_back({name, version, library, i, sym.value});
      continue;
    }
    FunctionSymbol symbol;
    symbol.name = name;
    symbol.version = version;
    symbol.default_version = default_version;
    symbol.value = sym.value;
    symbol.size = sym.size;
    symbol.bind = sym.binding();
    symbol.type = type;
    symbol.section_index = sym.section_index;
    symbol.section = sym.section_index < file.sections().size()
                         ? absl::string_view(file.sections()[sym.section_index].name)
                         : absl::string_view("<bad section index>");
    symbol.table = stored_label;
    symbol.from_binary = from_binary;
    symbols_.push_back(symbol);
  }
  return absl::OkStatus();
}

void SymbolIndex::IndexNames() const {
  if (next_symbol_.size() < symbols_.size()) {
    by_name_.reserve(symbols_.size());
    next_symbol_.reserve(symbols_.size());
    for (size_t i = next_symbol_.size(); i < symbols_.size(); ++i) {
      Link(by_name_, next_symbol_, symbols_[i].name, static_cast<uint32_t>(i));
    }
  }
  for (size_t i = next_import_.size(); i < imports_.size(); ++i) {
    Link(imports_by_name_, next_import_, imports_[i].name, static_cast<uint32_t>(i));
  }
}

std::vector<const FunctionSymbol*> SymbolIndex::Find(absl::string_view name) const {
  IndexNames();
  std::vector<const FunctionSymbol*> found;
  auto it = by_name_.find(name);
  if (it == by_name_.end()) return found;
  for (uint32_t i = it->second.first; i != kEndOfChain; i = next_symbol_[i]) {
    found.push_back(&symbols_[i]);
  }
  return found;
}

std::vector<const ImportedSymbol*> SymbolIndex::FindImport(absl::string_view name) const {
  IndexNames();
  std::vector<const ImportedSymbol*> found;
  auto it = imports_by_name_.find(name);
  if (it == imports_by_name_.end()) return found;
  for (uint32_t i = it->second.first; i != kEndOfChain; i = next_import_[i]) {
    found.push_back(&imports_[i]);
  }
  return found;
}

std::vector<std::string> SymbolIndex::CloseNames(absl::string_view name, size_t limit) const {
  IndexNames();
  NearNames near(name);
  for (const auto& [candidate, unused] : by_name_) near.Consider(candidate);
  for (const auto& [candidate, unused] : imports_by_name_) {
    if (!by_name_.contains(candidate)) near.Consider(candidate);
  }
  return near.Best(limit);
}

}  // namespace perftk::uprobe
