#include "jit/buildid_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"

namespace perftk::jit {
namespace {

absl::Status Failed(absl::string_view what, const std::string& path) {
  return absl::PermissionDeniedError(
      absl::StrCat("build-id cache: cannot ", what, " ", path, ": ", std::strerror(errno)));
}

// mkdir -p: every missing directory of `path`.
absl::Status MakeDirectories(const std::string& path) {
  for (size_t slash = path.find('/', 1);; slash = path.find('/', slash + 1)) {
    std::string prefix = path.substr(0, slash);
    if (mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST) {
      return Failed("create directory", prefix);
    }
    if (slash == std::string::npos) return absl::OkStatus();
  }
}

absl::Status CopyFile(const std::string& from, const std::string& to) {
  int in = open(from.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) return Failed("read", from);
  std::string temp = absl::StrCat(to, ".tmp.", getpid());
  int out = open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (out < 0) {
    close(in);
    return Failed("create", temp);
  }
  std::vector<char> buffer(1 << 16);
  absl::Status status;
  while (status.ok()) {
    ssize_t n = read(in, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) status = Failed("read", from);
    if (n <= 0) break;
    for (ssize_t done = 0; done < n && status.ok();) {
      ssize_t w = write(out, buffer.data() + done, static_cast<size_t>(n - done));
      if (w < 0 && errno == EINTR) continue;
      if (w < 0) status = Failed("write", temp);
      else done += w;
    }
  }
  close(in);
  if (close(out) != 0 && status.ok()) status = Failed("write", temp);
  if (status.ok() && rename(temp.c_str(), to.c_str()) != 0) status = Failed("create", to);
  if (!status.ok()) unlink(temp.c_str());
  return status;
}

}  // namespace

absl::StatusOr<std::string> DefaultBuildIdCacheDir() {
  const char* home = std::getenv("HOME");
  if (home == nullptr || *home == '\0') {
    return absl::FailedPreconditionError(
        "--buildid-cache: HOME is not set; give the directory as --buildid-cache=DIR");
  }
  return absl::StrCat(home, "/.debug");
}

std::string BuildIdHex(std::span<const uint8_t> build_id) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(build_id.size() * 2);
  for (uint8_t b : build_id) {
    hex.push_back(kDigits[b >> 4]);
    hex.push_back(kDigits[b & 15]);
  }
  return hex;
}

absl::Status AddToBuildIdCache(const std::string& dir, const std::string& path,
                               std::span<const uint8_t> build_id) {
  if (path.empty() || path[0] != '/') {
    return absl::InvalidArgumentError(
        absl::StrCat("build-id cache: ", path, " is not an absolute path"));
  }
  if (build_id.size() < 2) {
    return absl::InvalidArgumentError(absl::StrCat("build-id cache: ", path, " has no build id"));
  }
  std::string hex = BuildIdHex(build_id);
  std::string entry_dir = absl::StrCat(dir, path, "/", hex);
  if (absl::Status s = MakeDirectories(entry_dir); !s.ok()) return s;
  std::string elf = entry_dir + "/elf";
  if (link(path.c_str(), elf.c_str()) != 0 && errno != EEXIST) {
    if (absl::Status s = CopyFile(path, elf); !s.ok()) return s;
  }
  std::string link_dir = absl::StrCat(dir, "/.build-id/", hex.substr(0, 2));
  if (absl::Status s = MakeDirectories(link_dir); !s.ok()) return s;
  std::string link_path = absl::StrCat(link_dir, "/", hex.substr(2));
  std::string target = absl::StrCat("../..", path, "/", hex);
  if (symlink(target.c_str(), link_path.c_str()) != 0 && errno != EEXIST) {
    return Failed("create the link", link_path);
  }
  return absl::OkStatus();
}

}  // namespace perftk::jit
