// Where the dynamic linker would find the libraries a binary needs: its
// DT_NEEDED names searched in DT_RPATH (only without DT_RUNPATH),
// LD_LIBRARY_PATH, DT_RUNPATH ($ORIGIN expanded) and the standard
// directories for the binary's machine. A candidate of another ELF class or
// machine is skipped, as ld.so does.
#ifndef PERFTK_UPROBE_LIBRARY_SEARCH_H_
#define PERFTK_UPROBE_LIBRARY_SEARCH_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "elf/elf_file.h"

namespace perftk::uprobe {

struct DynamicInfo {
  std::vector<std::string> needed;
  std::vector<std::string> rpath;
  std::vector<std::string> runpath;
};

absl::StatusOr<DynamicInfo> ReadDynamicInfo(const elf::ElfFile& file);

// The directories searched for the dependencies of `file`, in order.
std::vector<std::string> LibrarySearchPath(const elf::ElfFile& file, const DynamicInfo& info);

// The path of library `soname` as loaded for `file`, or nullopt.
std::optional<std::string> FindLibrary(const elf::ElfFile& file,
                                       const std::vector<std::string>& dirs,
                                       const std::string& soname);

}  // namespace perftk::uprobe

#endif  // PERFTK_UPROBE_LIBRARY_SEARCH_H_
