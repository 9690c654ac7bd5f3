// SymbolIndex: the function symbols of one binary (its .dynsym and .symtab,
// plus the .symtab of a separate debug file when the binary has none),
// indexed by plain name so that resolving many names is one build and one
// hash lookup per name. The name index is built on the first lookup, so a
// listing, which needs none, does not pay for it (not thread-safe).
//
// Names are stored without their version; the version (from .gnu.version +
// .gnu.version_d for .dynsym, or from a raw "name@VER"/"name@@VER" in
// .symtab) is kept beside it. Only defined STT_FUNC and STT_GNU_IFUNC
// symbols are functions; undefined functions in .dynsym are imports.
// Names, versions and section names are views into the ElfFile the symbol
// came from (no copies: a large binary has tens of thousands of symbols),
// so that file must outlive the index.
#ifndef PERFTK_UPROBE_SYMBOL_INDEX_H_
#define PERFTK_UPROBE_SYMBOL_INDEX_H_

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "elf/elf_file.h"

namespace perftk::uprobe {

struct FunctionSymbol {
  absl::string_view name;
  absl::string_view version;    // empty when the symbol has none
  bool default_version = true;  // false for a hidden (non-default) version
  uint64_t value = 0;           // st_value, an address in the binary's layout
  uint64_t size = 0;
  uint8_t bind = STB_GLOBAL;
  uint8_t type = STT_FUNC;
  absl::string_view section;  // name of the section st_shndx refers to (owned by the ElfFile)
  size_t section_index = 0;
  absl::string_view table;  // where it was read: ".dynsym", ".symtab", "<debug path>:.symtab"
  bool from_binary = true;  // section_index refers to the binary's own section headers

  // "name", "name@VER" or "name@@VER".
  std::string DisplayName() const;
  // Appends DisplayName() to `out`.
  void AppendDisplayName(std::string* out) const;
};

struct ImportedSymbol {
  absl::string_view name;
  absl::string_view version;  // required version, empty if none
  absl::string_view library;  // vn_file of the version requirement, if any
  size_t dynsym_index = 0;
  uint64_t value = 0;  // non-zero for a canonical PLT entry in a non-PIE program
};

class SymbolIndex {
 public:
  // Adds the functions of the .dynsym and .symtab of `file`. `from_binary`
  // is false when `file` is a separate debug file of the binary.
  absl::Status AddTables(const elf::ElfFile& file, bool from_binary);
  // Adds only the .symtab of `file`, labelling its entries with `label`.
  absl::Status AddSymtab(const elf::ElfFile& file, absl::string_view label);

  bool has_symtab() const { return has_symtab_; }
  const std::vector<FunctionSymbol>& symbols() const { return symbols_; }
  const std::vector<ImportedSymbol>& imports() const { return imports_; }

  // Every function named `name` (plain name, no version), in table order.
  std::vector<const FunctionSymbol*> Find(absl::string_view name) const;
  std::vector<const ImportedSymbol*> FindImport(absl::string_view name) const;
  // Up to `limit` known names closest to `name`, best first.
  std::vector<std::string> CloseNames(absl::string_view name, size_t limit) const;

 private:
  absl::Status AddTable(const elf::ElfFile& file, const elf::Section& table,
                        absl::string_view label, bool from_binary);

  // Entries of one name form a chain through a `next` array (kEndOfChain
  // ends it), so indexing a symbol allocates nothing beyond a hash slot.
  static constexpr uint32_t kEndOfChain = UINT32_MAX;
  struct Chain {
    uint32_t first = kEndOfChain;
    uint32_t last = kEndOfChain;
  };
  using ChainsByName = absl::flat_hash_map<absl::string_view, Chain>;
  static void Link(ChainsByName& chains, std::vector<uint32_t>& next, absl::string_view name,
                   uint32_t entry);
  // Brings the name index up to date with the symbols added so far.
  void IndexNames() const;

  std::deque<std::string> labels_;  // stable storage for FunctionSymbol::table
  std::vector<FunctionSymbol> symbols_;
  std::vector<ImportedSymbol> imports_;
  bool has_symtab_ = false;
  // The name index, a cache built by IndexNames().
  mutable ChainsByName by_name_;
  mutable ChainsByName imports_by_name_;
  mutable std::vector<uint32_t> next_symbol_;  // parallel to the indexed symbols_
  mutable std::vector<uint32_t> next_import_;  // parallel to the indexed imports_
};

// Splits a raw .symtab name "name@VER" / "name@@VER" into its parts, which
// are views into `raw`.
void SplitVersionedName(absl::string_view raw, absl::string_view* name, absl::string_view* version,
                        bool* default_version);

}  // namespace perftk::uprobe

#endif  // PERFTK_UPROBE_SYMBOL_INDEX_H_
