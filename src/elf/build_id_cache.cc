#include "elf/build_id_cache.h"

#include <cstdlib>
#include <utility>

#include "absl/strings/str_cat.h"

namespace perftk::elf {

std::string BuildIdCacheDir() {
  if (const char* dir = std::getenv("PERF_BUILDID_DIR"); dir != nullptr && *dir != '\0') {
    return dir;
  }
  const char* home = std::getenv("HOME");
  return home != nullptr && *home != '\0' ? absl::StrCat(home, "/.debug") : std::string();
}

std::vector<std::string> BuildIdCachePaths(absl::string_view cache_dir, absl::string_view name,
                                           absl::string_view hex) {
  std::vector<std::string> paths;
  if (cache_dir.empty() || hex.size() < 2) return paths;
  const std::string link =
      absl::StrCat(cache_dir, "/.build-id/", hex.substr(0, 2), "/", hex.substr(2));
  if (name == kVdsoName) {
    paths.push_back(absl::StrCat(link, "/vdso"));
    paths.push_back(absl::StrCat(cache_dir, "/", kVdsoName, "/", hex, "/vdso"));
  } else {
    paths.push_back(absl::StrCat(link, "/elf"));
  }
  paths.push_back(link);
  return paths;
}

std::vector<std::string> BuildIdCachePaths(absl::string_view cache_dir, absl::string_view name,
                                           const BuildId& id) {
  std::vector<std::string> paths = BuildIdCachePaths(cache_dir, name, id.ToHex());
  if (const BuildId unpadded = id.Unpadded(); !unpadded.empty() && unpadded != id) {
    for (std::string& path : BuildIdCachePaths(cache_dir, name, unpadded.ToHex())) {
      paths.push_back(std::move(path));
    }
  }
  return paths;
}

}  // namespace perftk::elf
