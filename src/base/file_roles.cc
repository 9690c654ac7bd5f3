#include "base/file_roles.h"

#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "base/printable.h"

namespace perftk::base {
namespace {

struct Claim {
  uint64_t id = 0;
  std::string path;                             // as the user gave it
  std::string absolute;                         // ResolvedPath(path)
  std::optional<std::pair<dev_t, ino_t>> file;  // when it existed at the claim
  std::string role;
  absl::Status conflict;
};

// A regular file the run has read.
struct Input {
  std::string path;
  std::string role;
};

struct Claims {
  std::mutex mu;
  std::vector<Claim> live;
  int run_scopes = 0;  // inputs are noted while this is not 0
  absl::flat_hash_map<std::pair<dev_t, ino_t>, Input> inputs;
  uint64_t last_id = 0;

  Claim* Find(uint64_t id) {
    for (Claim& claim : live) {
      if (claim.id == id) return &claim;
    }
    return nullptr;
  }
};

Claims& TheClaims() {
  static Claims* claims = new Claims();  // never destroyed: used until exit
  return *claims;
}

}  // namespace

std::string ResolvedFolder(const std::string& folder) {
  char resolved[PATH_MAX];
  if (realpath(folder.c_str(), resolved) != nullptr) return resolved;
  if (!folder.empty() && folder[0] == '/') return folder;
  char cwd[PATH_MAX];
  return getcwd(cwd, sizeof(cwd)) != nullptr ? absl::StrCat(cwd, "/", folder) : folder;
}

std::string ResolvedPath(const std::string& path) {
  std::string folder = ".", name = path;
  if (size_t slash = path.rfind('/'); slash != std::string::npos) {
    folder = slash == 0 ? "/" : path.substr(0, slash);
    name = path.substr(slash + 1);
  }
  std::string base = ResolvedFolder(folder);
  return base == "/" ? absl::StrCat("/", name) : absl::StrCat(base, "/", name);
}

namespace {

absl::Status Conflict(const std::string& output_path, absl::string_view output_role,
                      const std::string& input_path, absl::string_view input_role) {
  return absl::FailedPreconditionError(absl::StrCat(
      Printable(output_path), ": the ", output_role, " is also the ", input_role, " of this run",
      (output_path == input_path ? "" : absl::StrCat(" (", Printable(input_path), ")")),
      "; refused, so that it is not overwritten"));
}

}  // namespace

OutputClaim::OutputClaim(const std::string& path, absl::string_view role) {
  if (path.empty() || path == "-") return;
  Claim claim{0, path, ResolvedPath(path), std::nullopt, std::string(role), absl::OkStatus()};
  struct stat st;
  if (stat(path.c_str(), &st) == 0) claim.file = std::make_pair(st.st_dev, st.st_ino);
  Claims& claims = TheClaims();
  std::lock_guard<std::mutex> lock(claims.mu);
  if (claim.file) {
    if (auto input = claims.inputs.find(*claim.file); input != claims.inputs.end()) {
      claim.conflict = Conflict(claim.path, claim.role, input->second.path, input->second.role);
    }
  }
  claim.id = id_ = ++claims.last_id;
  claims.live.push_back(std::move(claim));
}

OutputClaim::OutputClaim(OutputClaim&& other) noexcept : id_(std::exchange(other.id_, 0)) {}

OutputClaim& OutputClaim::operator=(OutputClaim&& other) noexcept {
  if (this != &other) {
    Release();
    id_ = std::exchange(other.id_, 0);
  }
  return *this;
}

OutputClaim::~OutputClaim() { Release(); }

void OutputClaim::Release() {
  if (id_ == 0) return;
  Claims& claims = TheClaims();
  std::lock_guard<std::mutex> lock(claims.mu);
  std::erase_if(claims.live, [this](const Claim& claim) { return claim.id == id_; });
  id_ = 0;
}

absl::Status OutputClaim::conflict() const {
  if (id_ == 0) return absl::OkStatus();
  Claims& claims = TheClaims();
  std::lock_guard<std::mutex> lock(claims.mu);
  const Claim* claim = claims.Find(id_);
  return claim != nullptr ? claim->conflict : absl::OkStatus();
}

std::vector<std::string> ClaimedNamesIn(const std::string& absolute_folder) {
  std::string prefix = absolute_folder == "/" ? "/" : absl::StrCat(absolute_folder, "/");
  Claims& claims = TheClaims();
  std::lock_guard<std::mutex> lock(claims.mu);
  std::vector<std::string> names;
  for (const Claim& claim : claims.live) {
    if (claim.absolute.size() > prefix.size() && claim.absolute.starts_with(prefix) &&
        claim.absolute.find('/', prefix.size()) == std::string::npos) {
      names.push_back(claim.absolute.substr(prefix.size()));
    }
  }
  return names;
}

absl::Status CheckNotAnOutput(const std::string& path, const struct stat* st,
                              absl::string_view role) {
  if (path.empty() || path == "-") return absl::OkStatus();
  struct stat own;
  if (st == nullptr && stat(path.c_str(), &own) == 0) st = &own;
  const std::string absolute = ResolvedPath(path);
  Claims& claims = TheClaims();
  std::lock_guard<std::mutex> lock(claims.mu);
  absl::Status first;
  for (Claim& claim : claims.live) {
    bool same_file = st != nullptr && claim.file && claim.file->first == st->st_dev &&
                     claim.file->second == st->st_ino;
    if (!same_file && claim.absolute != absolute) continue;
    absl::Status conflict = Conflict(claim.path, claim.role, path, role);
    if (claim.conflict.ok()) claim.conflict = conflict;
    if (first.ok()) first = conflict;
  }
  return first;
}

RunScope::RunScope() {
  Claims& claims = TheClaims();
  std::lock_guard<std::mutex> lock(claims.mu);
  ++claims.run_scopes;
}

RunScope::~RunScope() {
  Claims& claims = TheClaims();
  std::lock_guard<std::mutex> lock(claims.mu);
  if (--claims.run_scopes == 0) claims.inputs.clear();
}

void NoteInput(const std::string& path, const struct stat& st, absl::string_view role) {
  if (!S_ISREG(st.st_mode)) return;
  Claims& claims = TheClaims();
  std::lock_guard<std::mutex> lock(claims.mu);
  if (claims.run_scopes == 0) return;
  claims.inputs.try_emplace(std::make_pair(st.st_dev, st.st_ino), Input{path, std::string(role)});
}

}  // namespace perftk::base
