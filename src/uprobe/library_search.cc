#include "uprobe/library_search.h"

#include <cstdlib>

#include "absl/status/status.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"

namespace perftk::uprobe {
namespace {

std::string Directory(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

void AppendPathList(const std::string& list, const std::string& origin,
                    std::vector<std::string>& out) {
  for (absl::string_view dir : absl::StrSplit(list, ':', absl::SkipEmpty())) {
    out.push_back(absl::StrReplaceAll(dir, {{"${ORIGIN}", origin}, {"$ORIGIN", origin}}));
  }
}

std::vector<std::string> StandardDirs(const elf::ElfFile& file) {
  std::string triplet;
  if (file.machine() == EM_X86_64 && file.is_64bit()) triplet = "x86_64-linux-gnu";
  if (file.machine() == EM_AARCH64) triplet = "aarch64-linux-gnu";
  if (file.machine() == EM_386) triplet = "i386-linux-gnu";
  std::vector<std::string> dirs;
  if (!triplet.empty()) {
    dirs.push_back("/lib/" + triplet);
    dirs.push_back("/usr/lib/" + triplet);
  }
  if (file.is_64bit()) {
    dirs.push_back("/lib64");
    dirs.push_back("/usr/lib64");
  } else {
    dirs.push_back("/lib32");
    dirs.push_back("/usr/lib32");
  }
  dirs.push_back("/lib");
  dirs.push_back("/usr/lib");
  return dirs;
}

}  // namespace

absl::StatusOr<DynamicInfo> ReadDynamicInfo(const elf::ElfFile& file) {
  DynamicInfo info;
  const elf::Section* dynamic = file.FindSectionByType(SHT_DYNAMIC);
  if (dynamic == nullptr || dynamic->entry_size == 0) return info;
  absl::StatusOr<std::vector<elf::DynamicEntry>> entries = file.DynamicEntries(*dynamic);
  if (!entries.ok()) return entries.status();
  for (const elf::DynamicEntry& entry : *entries) {
    if (entry.tag == DT_NULL) break;
    if (entry.tag != DT_NEEDED && entry.tag != DT_RPATH && entry.tag != DT_RUNPATH) continue;
    absl::StatusOr<std::string> text = file.StringAt(dynamic->link, entry.value);
    if (!text.ok()) return text.status();
    const std::string origin = Directory(file.path());
    if (entry.tag == DT_NEEDED) info.needed.push_back(*text);
    if (entry.tag == DT_RPATH) AppendPathList(*text, origin, info.rpath);
    if (entry.tag == DT_RUNPATH) AppendPathList(*text, origin, info.runpath);
  }
  return info;
}

std::vector<std::string> LibrarySearchPath(const elf::ElfFile& file, const DynamicInfo& info) {
  std::vector<std::string> dirs;
  if (info.runpath.empty()) dirs = info.rpath;
  if (const char* env = std::getenv("LD_LIBRARY_PATH"); env != nullptr) {
    AppendPathList(env, Directory(file.path()), dirs);
  }
  dirs.insert(dirs.end(), info.runpath.begin(), info.runpath.end());
  for (std::string& dir : StandardDirs(file)) dirs.push_back(std::move(dir));
  return dirs;
}

std::optional<std::string> FindLibrary(const elf::ElfFile& file,
                                       const std::vector<std::string>& dirs,
                                       const std::string& soname) {
  std::vector<std::string> candidates;
  if (soname.find('/') != std::string::npos) {
    candidates.push_back(soname);
  } else {
    for (const std::string& dir : dirs) candidates.push_back(dir + "/" + soname);
  }
  for (const std::string& candidate : candidates) {
    absl::StatusOr<std::unique_ptr<elf::ElfFile>> library = elf::ElfFile::Open(candidate);
    if (!library.ok()) continue;
    if ((*library)->machine() != file.machine() || (*library)->is_64bit() != file.is_64bit()) {
      continue;
    }
    return candidate;
  }
  return std::nullopt;
}

}  // namespace perftk::uprobe
