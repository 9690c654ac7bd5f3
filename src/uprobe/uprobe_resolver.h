// UprobeResolver: answers "at which file offset does a uprobe for function F
// in binary B go?", or says exactly why there is no right answer.
//
// The binary is opened and indexed once (symbols, versions, debug files);
// each Resolve is then a hash lookup. Rules, in order:
//  - functions defined in B (STT_FUNC/STT_GNU_IFUNC from .dynsym, .symtab or
//    a separate debug file); aliases at one address are one match; a global
//    beats a weak; several non-weak matches are an error unless `all`;
//  - an IFUNC is an error (its selector runs once, not per call) unless
//    `ifunc_selector`;
//  - a function B imports resolves to B's PLT stub (sees only B's calls),
//    or with `in_library` to the function in the library B loads it from;
//  - offsets come from B's executable PT_LOAD, cross-checked with sections.
#ifndef PERFTK_UPROBE_UPROBE_RESOLVER_H_
#define PERFTK_UPROBE_UPROBE_RESOLVER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "elf/elf_file.h"
#include "uprobe/plt.h"
#include "uprobe/query.h"
#include "uprobe/symbol_index.h"
#include "uprobe/usdt_args.h"

namespace perftk::uprobe {

struct ResolveOptions {
  bool ifunc_selector = false;
  bool all = false;
  bool in_library = false;
  std::string debug_root = "/usr/lib/debug";
};

// One place to put a uprobe.
struct ProbeSite {
  std::string query;     // the name as asked for; empty in listings
  std::string path;      // absolute path of the file the probe goes on
  std::string symbol;    // "name", "name@@VER", "name@plt"
  uint64_t address = 0;  // virtual address in that file's layout
  uint64_t offset = 0;   // file offset for uprobe_events
  uint64_t size = 0;
  std::string binding;  // "global", "weak", "local"
  std::string type;     // "func", "ifunc", "plt"
  std::string section;
  std::string table;  // where the symbol was found
  std::string note;   // caveat for the user, empty if none
  // USDT probes only (type "usdt"): the semaphore's file offset, the
  // kernel's ref_ctr_offset (0 for none), and the arguments.
  uint64_t ref_ctr_offset = 0;
  std::vector<UsdtArgument> arguments;
};

// One entry of a listing: a function defined in the binary or a PLT stub.
// Light on purpose (a listing has tens of thousands): the strings are views
// into the resolver's files and stay valid as long as the resolver.
struct ListedSite {
  const FunctionSymbol* function = nullptr;  // null for a PLT stub
  absl::string_view imported_name;           // the PLT stub's function
  uint64_t address = 0;
  uint64_t offset = 0;  // valid when `note` is empty
  absl::string_view section;
  std::string note;  // why there is no offset; empty if none

  // Appends "name", "name@VER", "name@@VER" or "name@plt" to `out`.
  void AppendSymbol(std::string* out) const;
  // The same without a std::string: its length, and writing it to `out`,
  // which has room for SymbolLength() bytes; returns the end.
  size_t SymbolLength() const;
  char* WriteSymbol(char* out) const;
  std::string Symbol() const;
  // The full description, with `path` left empty.
  ProbeSite ToProbeSite() const;
};

class UprobeResolver {
 public:
  static absl::StatusOr<std::unique_ptr<UprobeResolver>> Open(const std::string& path,
                                                              const ResolveOptions& options);
  ~UprobeResolver();

  absl::StatusOr<std::vector<ProbeSite>> Resolve(absl::string_view query);
  // Every function defined in the binary (one entry per name and address,
  // sorted by name, then address) followed by every PLT stub. All are in
  // the file at path().
  absl::StatusOr<std::vector<ListedSite>> List();
  // Absolute path of the binary.
  const std::string& path() const;

 private:
  struct Binary;
  UprobeResolver() = default;
  static absl::StatusOr<std::unique_ptr<Binary>> LoadBinary(const std::string& path,
                                                            const std::string& debug_root);
  absl::StatusOr<std::vector<ProbeSite>> ResolveDefined(const Binary& binary, const Query& query);
  absl::StatusOr<std::vector<ProbeSite>> ResolveImport(Binary& binary, const Query& query);
  absl::StatusOr<std::vector<ProbeSite>> ResolveInLibrary(const Query& query,
                                                          const ImportedSymbol& import);
  absl::Status NotFound(const Binary& binary, const Query& query) const;

  ResolveOptions options_;
  std::unique_ptr<Binary> main_;
  absl::flat_hash_map<std::string, std::unique_ptr<Binary>> libraries_;
};

}  // namespace perftk::uprobe

#endif  // PERFTK_UPROBE_UPROBE_RESOLVER_H_
