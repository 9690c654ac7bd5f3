// UsdtResolver: answers "where does a uprobe for USDT probe PROVIDER:NAME
// in binary B go, which semaphore must the kernel count in, and how are its
// arguments read?", for uprobe_events.
//
// The binary's .note.stapsdt notes are read and placed once (see
// usdt_notes.h). A probe inlined at several sites has one note per site:
// several sites are an error unless `all`. Arguments are translated per
// site (usdt_args.h); a %rip-relative symbol is looked up in .symtab, then
// .dynsym.
#ifndef PERFTK_UPROBE_USDT_RESOLVER_H_
#define PERFTK_UPROBE_USDT_RESOLVER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "elf/elf_file.h"
#include "uprobe/uprobe_resolver.h"
#include "uprobe/usdt_notes.h"

namespace perftk::uprobe {

class UsdtResolver {
 public:
  // Fails when `path` cannot be read as ELF, a note is malformed or cannot
  // be placed, or the file has no USDT notes at all.
  static absl::StatusOr<std::unique_ptr<UsdtResolver>> Open(const std::string& path);

  // `probe` is "PROVIDER:NAME", or "NAME" when one provider has it. Each
  // site has type "usdt", symbol "PROVIDER:NAME", its offset, semaphore
  // offset and arguments, those numbered (from 1) in `string_arguments`
  // read as C strings (see ReadAsString). An unknown probe's error lists
  // the near names.
  absl::StatusOr<std::vector<ProbeSite>> Resolve(
      absl::string_view probe, bool all, const std::vector<int>& string_arguments = {}) const;

  // Every note, in file order.
  const std::vector<UsdtProbe>& probes() const { return probes_; }
  // Every site as Resolve describes it, in file order.
  std::vector<ProbeSite> Sites() const;
  const std::string& path() const { return path_; }

 private:
  UsdtResolver() = default;
  ProbeSite ToProbeSite(const UsdtProbe& probe) const;
  absl::Status ReadArgumentAsString(ProbeSite* site, int number) const;
  absl::StatusOr<uint64_t> SymbolFetchOffset(const UsdtProbe& probe,
                                             absl::string_view symbol) const;
  absl::Status NotFound(absl::string_view probe) const;

  std::string path_;
  std::unique_ptr<elf::ElfFile> file_;
  std::vector<UsdtProbe> probes_;
};

}  // namespace perftk::uprobe

#endif  // PERFTK_UPROBE_USDT_RESOLVER_H_
