#include "uprobe/usdt_resolver.h"

#include <algorithm>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "uprobe/near_names.h"
#include "uprobe/usdt_args.h"

namespace perftk::uprobe {
namespace {

// "PROVIDER:NAME at 0xOFFSET: ... argN 'SPEC': why" for every argument
// without a fetch, "; "-joined; empty if there is none.
std::string DescribeUnexpressed(const UsdtProbe& probe,
                                const std::vector<UsdtArgument>& arguments) {
  std::vector<std::string> parts;
  for (size_t i = 0; i < arguments.size(); ++i) {
    if (arguments[i].fetch.empty()) {
      parts.push_back(
          absl::StrFormat("arg%d '%s': %s", i + 1, arguments[i].spec, arguments[i].problem));
    }
  }
  if (parts.empty()) return "";
  return absl::StrFormat("%s at 0x%x: not expressible in uprobe_events fetch-args, left out: %s",
                         probe.FullName(), probe.offset, absl::StrJoin(parts, "; "));
}

}  // namespace

absl::StatusOr<std::unique_ptr<UsdtResolver>> UsdtResolver::Open(const std::string& path) {
  std::unique_ptr<UsdtResolver> resolver(new UsdtResolver());
  resolver->path_ = elf::AbsolutePath(path);
  absl::StatusOr<std::unique_ptr<elf::ElfFile>> file = elf::ElfFile::Open(path);
  if (!file.ok()) return file.status();
  resolver->file_ = std::move(*file);
  absl::StatusOr<std::vector<UsdtNote>> notes = ReadUsdtNotes(*resolver->file_);
  if (!notes.ok()) return notes.status();
  if (notes->empty()) {
    return absl::NotFoundError(
        absl::StrCat(path,
                     ": no USDT probes (no NT_STAPSDT note in a .note.stapsdt section; the program "
                     "was built without <sys/sdt.h> probes, or they were stripped)"));
  }
  absl::StatusOr<std::vector<UsdtProbe>> probes =
      PlaceUsdtNotes(*resolver->file_, std::move(*notes));
  if (!probes.ok()) {
    return absl::Status(probes.status().code(),
                        absl::StrCat(path, ": ", probes.status().message()));
  }
  resolver->probes_ = std::move(*probes);
  return resolver;
}

absl::StatusOr<std::vector<ProbeSite>> UsdtResolver::Resolve(
    absl::string_view probe, bool all, const std::vector<int>& string_arguments) const {
  const size_t colon = probe.rfind(':');
  const absl::string_view provider =
      colon == absl::string_view::npos ? absl::string_view() : probe.substr(0, colon);
  const absl::string_view name = colon == absl::string_view::npos ? probe : probe.substr(colon + 1);
  std::vector<const UsdtProbe*> sites;
  std::vector<std::string> providers;
  for (const UsdtProbe& p : probes_) {
    if (p.note.name != name || (colon != absl::string_view::npos && p.note.provider != provider)) {
      continue;
    }
    sites.push_back(&p);
    if (std::find(providers.begin(), providers.end(), p.note.provider) == providers.end()) {
      providers.push_back(p.note.provider);
    }
  }
  if (sites.empty()) return NotFound(probe);
  if (providers.size() > 1) {
    return absl::FailedPreconditionError(
        absl::StrFormat("%s: USDT probe '%s' exists in providers %s: name one as usdt:PROVIDER:%s",
                        path_, name, absl::StrJoin(providers, ", "), name));
  }
  if (sites.size() > 1 && !all) {
    std::vector<std::string> lines;
    for (const UsdtProbe* site : sites) {
      lines.push_back(absl::StrFormat("  offset 0x%x (address 0x%x), arguments '%s'", site->offset,
                                      site->address, site->note.arguments));
    }
    return absl::FailedPreconditionError(absl::StrFormat(
        "%s: USDT probe '%s' has %d sites (inlined or written more than once):\n%s\nPass --all "
        "to probe every one.",
        path_, sites[0]->FullName(), sites.size(), absl::StrJoin(lines, "\n")));
  }
  std::vector<ProbeSite> found;
  for (const UsdtProbe* site : sites) {
    found.push_back(ToProbeSite(*site));
    found.back().query = absl::StrCat("usdt:", probe);  // as asked: names the event
    for (int number : string_arguments) {
      if (absl::Status s = ReadArgumentAsString(&found.back(), number); !s.ok()) return s;
    }
  }
  return found;
}

std::vector<ProbeSite> UsdtResolver::Sites() const {
  std::vector<ProbeSite> sites;
  sites.reserve(probes_.size());
  for (const UsdtProbe& probe : probes_) {
    sites.push_back(ToProbeSite(probe));
    sites.back().query = absl::StrCat("usdt:", probe.FullName());
  }
  return sites;
}

ProbeSite UsdtResolver::ToProbeSite(const UsdtProbe& probe) const {
  ProbeSite site;
  site.path = path_;
  site.symbol = probe.FullName();
  site.address = probe.address;
  site.offset = probe.offset;
  site.type = "usdt";
  const elf::Section* section = file_->SectionContaining(probe.address);
  if (section != nullptr) site.section = section->name;
  site.table = ".note.stapsdt";
  site.ref_ctr_offset = probe.semaphore_offset;
  site.arguments = TranslateUsdtArguments(
      probe.note.arguments, file_->machine(),
      [this, &probe](absl::string_view symbol) { return SymbolFetchOffset(probe, symbol); });
  site.note = DescribeUnexpressed(probe, site.arguments);
  return site;
}

absl::Status UsdtResolver::ReadArgumentAsString(ProbeSite* site, int number) const {
  if (number < 1 || static_cast<size_t>(number) > site->arguments.size()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: USDT probe %s has %d arguments, no argument %d to read as a string",
                        path_, site->symbol, site->arguments.size(), number));
  }
  absl::Status read = ReadAsString(&site->arguments[number - 1], file_->is_64bit() ? 8 : 4);
  if (!read.ok()) {
    return absl::Status(read.code(), absl::StrFormat("%s: USDT probe %s, argument %d: %s", path_,
                                                     site->symbol, number, read.message()));
  }
  return absl::OkStatus();
}

absl::StatusOr<uint64_t> UsdtResolver::SymbolFetchOffset(const UsdtProbe& probe,
                                                         absl::string_view symbol) const {
  for (uint32_t table_type : {SHT_SYMTAB, SHT_DYNSYM}) {
    const elf::Section* table = file_->FindSectionByType(table_type);
    if (table == nullptr || table->entry_size == 0) continue;
    absl::StatusOr<std::vector<elf::Symbol>> symbols = file_->Symbols(*table);
    if (!symbols.ok()) return symbols.status();
    for (size_t i = 1; i < symbols->size(); ++i) {
      const elf::Symbol& candidate = (*symbols)[i];
      if (!candidate.defined()) continue;
      absl::StatusOr<absl::string_view> name =
          file_->StringViewAt(table->link, candidate.name_offset);
      if (!name.ok() || *name != symbol) continue;
      // The kernel reads "@+X" at (probe's mapped address - probe's file
      // offset + X).
      return candidate.value - probe.address + probe.offset;
    }
  }
  return absl::NotFoundError(
      absl::StrCat("symbol '", symbol, "' is in neither .symtab nor .dynsym"));
}

absl::Status UsdtResolver::NotFound(absl::string_view probe) const {
  NearNames near(probe);
  const bool with_provider = probe.find(':') != absl::string_view::npos;
  for (const UsdtProbe& p : probes_) near.Consider(with_provider ? p.FullName() : p.note.name);
  std::vector<std::string> close = near.Best(5);
  std::string message = absl::StrFormat("%s: no USDT probe '%s' (the file has %d probe sites)",
                                        path_, probe, probes_.size());
  if (!close.empty()) {
    absl::StrAppend(&message, ". Did you mean: usdt:", absl::StrJoin(close, ", usdt:"), "?");
  }
  absl::StrAppend(&message, " --list-usdt lists them all.");
  return absl::NotFoundError(message);
}

}  // namespace perftk::uprobe
