#include "elf/build_id_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <utility>

#include "absl/functional/function_ref.h"
#include "absl/strings/str_cat.h"
#include "base/creation_mode.h"
#include "base/generated_file.h"
#include "base/input_file.h"
#include "base/mutex.h"
#include "base/perf_config.h"
#include "base/printable.h"
#include "base/recorded_name.h"

namespace perftk::elf {
namespace {

absl::Status Failed(absl::string_view what, const std::string& path) {
  return absl::PermissionDeniedError(absl::StrCat(
      "build-id cache: cannot ", what, " ", base::Printable(path), ": ", std::strerror(errno)));
}

// Runs `make` for `path` as a pending file of the run, appended to `made`;
// an existing path is left alone (EEXIST is success).
absl::Status MakePending(const std::string& path, base::PendingFile::Kind kind,
                         absl::string_view what, std::vector<base::PendingFile>& made,
                         absl::FunctionRef<int()> make) {
  absl::StatusOr<base::PendingFile> pending = base::PendingFile::Make(path, kind, make);
  if (pending.ok()) {
    made.push_back(std::move(*pending));
    return absl::OkStatus();
  }
  if (absl::IsAlreadyExists(pending.status())) return absl::OkStatus();
  return Failed(what, path);
}

// mkdir -p: every missing directory of `path`.
absl::Status MakeDirectories(const std::string& path, std::vector<base::PendingFile>& made) {
  for (size_t slash = path.find('/', 1);; slash = path.find('/', slash + 1)) {
    std::string prefix = path.substr(0, slash);
    if (absl::Status s =
            MakePending(prefix, base::PendingFile::Kind::kDirectory, "create directory", made,
                        [&] { return mkdir(prefix.c_str(), base::DirectoryCreationMode()); });
        !s.ok()) {
      return s;
    }
    if (slash == std::string::npos) return absl::OkStatus();
  }
}

absl::Status CopyFile(const std::string& from, const std::string& to,
                      std::vector<base::PendingFile>& made) {
  absl::StatusOr<int> in = base::OpenInputFile(from, "ELF file to cache");
  if (!in.ok()) return in.status();
  absl::StatusOr<base::GeneratedFile> out = base::GeneratedFile::Create(to);
  if (!out.ok()) {
    close(*in);
    return out.status();
  }
  std::vector<std::byte> buffer(1 << 16);
  absl::Status status;
  while (status.ok()) {
    ssize_t n = read(*in, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) status = Failed("read", from);
    if (n <= 0) break;
    status = out->Write(std::span<const std::byte>(buffer.data(), static_cast<size_t>(n)));
  }
  close(*in);
  if (!status.ok()) return status;
  if (absl::StatusOr<struct stat> st = out->Close(); !st.ok()) return st.status();
  if (base::PendingFile pending = out->TakePending(); pending.listed()) {
    made.push_back(std::move(pending));
  }
  return absl::OkStatus();
}

std::string& ChosenBuildIdCacheDir() {
  static std::string* dir = new std::string();
  return *dir;
}

}  // namespace

void SetBuildIdCacheDir(std::string dir) { ChosenBuildIdCacheDir() = std::move(dir); }

std::string BuildIdCacheDir() {
  if (!ChosenBuildIdCacheDir().empty()) return ChosenBuildIdCacheDir();
  if (const char* dir = std::getenv("PERF_BUILDID_DIR"); dir != nullptr && *dir != '\0') {
    return dir;
  }
  const char* home = std::getenv("HOME");
  // perf's configuration is read once per PERF_CONFIG and HOME (they say
  // which files it is in), not once per binary looked up.
  const char* config = std::getenv("PERF_CONFIG");
  const std::string key =
      absl::StrCat(config != nullptr ? "1" : "0", config != nullptr ? config : "", "\n",
                   home != nullptr ? home : "");
  static base::Mutex* const mutex = new base::Mutex;
  static std::string* const read_for = new std::string;
  static std::optional<std::string>* const configured = new std::optional<std::string>;
  std::optional<std::string> dir;
  {
    base::MutexLock lock(*mutex);
    if (*read_for != key) {
      *configured = base::PerfConfigValue("buildid", "dir");
      *read_for = key;
    }
    dir = *configured;
  }
  if (dir && !dir->empty()) return *dir;
  return home != nullptr && *home != '\0' ? absl::StrCat(home, "/.debug") : std::string();
}

std::string BuildIdLinkPath(absl::string_view dir, absl::string_view hex) {
  if (hex.size() < 2) return "";
  return absl::StrCat(dir, "/.build-id/", hex.substr(0, 2), "/", hex.substr(2));
}

std::string BuildIdDebugPath(absl::string_view debug_root, absl::string_view hex) {
  if (hex.size() < 3) return "";
  return absl::StrCat(BuildIdLinkPath(debug_root, hex), ".debug");
}

std::vector<std::string> BuildIdCachePaths(absl::string_view cache_dir, absl::string_view name,
                                           absl::string_view hex) {
  std::vector<std::string> paths;
  if (cache_dir.empty() || hex.size() < 2) return paths;
  const std::string link = BuildIdLinkPath(cache_dir, hex);
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
                                           const base::BuildId& id) {
  std::vector<std::string> paths = BuildIdCachePaths(cache_dir, name, id.ToHex());
  if (const base::BuildId unpadded = id.Unpadded(); !unpadded.empty() && unpadded != id) {
    for (std::string& path : BuildIdCachePaths(cache_dir, name, unpadded.ToHex())) {
      paths.push_back(std::move(path));
    }
  }
  return paths;
}

absl::Status AddToBuildIdCache(const std::string& dir, const std::string& path,
                               const base::BuildId& build_id,
                               std::vector<base::PendingFile>& made) {
  if (path.empty() || path[0] != '/') {
    return absl::InvalidArgumentError(
        absl::StrCat("build-id cache: ", path, " is not an absolute path"));
  }
  if (build_id.size() < 2) {
    return absl::InvalidArgumentError(absl::StrCat("build-id cache: ", path, " has no build id"));
  }
  // The entry is named by the file's real path, as perf names it: a path
  // the recording gave ("/tmp/../home/x/jit-1.dump" and its .so files)
  // may hold ".." and links, and joined as it is it would leave `dir`.
  std::string file;
  if (char* real = realpath(path.c_str(), nullptr); real != nullptr) {
    file = real;
    free(real);
  } else {
    return Failed("resolve the path of", path);
  }
  if (file.empty() || file[0] != '/' || base::HasDotDotComponent(file)) {
    return absl::InvalidArgumentError(
        absl::StrCat("build-id cache: ", base::Printable(path), " resolves outside the cache"));
  }
  std::string hex = build_id.ToHex();
  std::string entry_dir = absl::StrCat(dir, file, "/", hex);
  if (absl::Status s = MakeDirectories(entry_dir, made); !s.ok()) return s;
  std::string elf = entry_dir + "/elf";
  if (absl::Status s = MakePending(elf, base::PendingFile::Kind::kFile, "link", made,
                                   [&] { return link(file.c_str(), elf.c_str()); });
      !s.ok()) {
    if (absl::Status copied = CopyFile(file, elf, made); !copied.ok()) return copied;
  }
  const std::string link_path = BuildIdLinkPath(dir, hex);
  const std::string link_dir = link_path.substr(0, link_path.rfind('/'));
  if (absl::Status s = MakeDirectories(link_dir, made); !s.ok()) return s;
  std::string target = absl::StrCat("../..", file, "/", hex);
  return MakePending(link_path, base::PendingFile::Kind::kFile, "create the link", made,
                     [&] { return symlink(target.c_str(), link_path.c_str()); });
}

}  // namespace perftk::elf
