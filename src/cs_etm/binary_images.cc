#include "cs_etm/binary_images.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <optional>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "base/input_file.h"
#include "elf/build_id.h"
#include "elf/elf_file.h"

namespace perftk::cs_etm {

struct BinaryImages::Mapped {
  Image image;
  void* base = nullptr;
  size_t size = 0;
  ~Mapped() {
    if (base != nullptr) munmap(base, size);
  }
};

namespace {

std::string Basename(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool IsRegularFile(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// The id as perf prints it: zero padding past 16 bytes left out.
std::string TrimBuildId(std::string id) {
  while (id.size() > 16 && id.back() == '\0') id.pop_back();
  return id;
}

}  // namespace

// Each thread's last answers, tried before the shared table: code reads
// take no lock once a thread has seen the Dso. Entries name their table by
// a number never reused, so a table destroyed and another made at its
// address cannot be answered from the old one's entries.
struct ThreadCacheEntry {
  uint64_t table = 0;
  const machine::Dso* dso = nullptr;
  const Image* image = nullptr;
};
constexpr size_t kThreadCacheSize = 8;
thread_local ThreadCacheEntry thread_cache[kThreadCacheSize];
thread_local size_t thread_cache_next = 0;
std::atomic<uint64_t> last_table_id{0};

BinaryImages::BinaryImages(std::string symfs, std::map<std::string, std::string> build_ids)
    : symfs_(std::move(symfs)), build_ids_(std::move(build_ids)), id_(++last_table_id) {}

BinaryImages::~BinaryImages() = default;

const Image* BinaryImages::Find(const machine::Dso& dso) {
  for (const ThreadCacheEntry& entry : thread_cache) {
    if (entry.table == id_ && entry.dso == &dso) return entry.image;
  }
  const Image* image = FindShared(dso);
  thread_cache[thread_cache_next] = ThreadCacheEntry{id_, &dso, image};
  thread_cache_next = (thread_cache_next + 1) % kThreadCacheSize;
  return image;
}

const Image* BinaryImages::FindShared(const machine::Dso& dso) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = by_dso_.find(&dso); it != by_dso_.end()) return it->second;
  }
  // Found, checked and mapped without the lock: other threads' code reads
  // go on meanwhile. Two threads may load one Dso; the first to finish wins.
  std::string warning;
  std::unique_ptr<Mapped> loaded = Load(dso, warning);
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = by_dso_.find(&dso); it != by_dso_.end()) return it->second;
  const Image* image = loaded ? &loaded->image : nullptr;
  if (loaded) mapped_.push_back(std::move(loaded));
  if (!warning.empty()) warnings_.push_back(std::move(warning));
  by_dso_.emplace(&dso, image);
  return image;
}

std::vector<std::string> BinaryImages::TakeWarnings() {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> out = std::move(warnings_);
  warnings_.clear();
  return out;
}

std::string BinaryImages::ExpectedBuildId(const machine::Dso& dso) const {
  if (!dso.build_id.empty()) return TrimBuildId(dso.build_id);
  auto it = build_ids_.find(dso.name);
  return it == build_ids_.end() ? std::string() : TrimBuildId(it->second);
}

std::unique_ptr<BinaryImages::Mapped> BinaryImages::Load(const machine::Dso& dso,
                                                         std::string& warning) const {
  std::vector<std::string> candidates;
  if (symfs_.empty()) {
    candidates.push_back(dso.name);
  } else {
    candidates.push_back(absl::StrCat(symfs_, "/", dso.name));
    candidates.push_back(absl::StrCat(symfs_, "/", Basename(dso.name)));
  }
  std::optional<std::string> path;
  for (const std::string& candidate : candidates) {
    if (IsRegularFile(candidate)) {
      path = candidate;
      break;
    }
  }
  if (!path) {
    warning = absl::StrCat("no file for ", dso.name, " (looked for ", candidates.front(),
                           candidates.size() > 1 ? absl::StrCat(" and ", candidates[1]) : "",
                           "): trace in it is skipped");
    return nullptr;
  }
  std::string expected = ExpectedBuildId(dso);
  if (!expected.empty()) {
    absl::StatusOr<std::unique_ptr<elf::ElfFile>> elf = elf::ElfFile::Open(*path);
    std::optional<std::string> actual = elf.ok() ? (*elf)->BuildId() : std::nullopt;
    std::string expected_hex = absl::BytesToHexString(expected);
    if (!actual || !elf::SameBuildIdHex(*actual, expected_hex)) {
      warning = absl::StrCat(*path, " has build id ", actual.value_or("(none)"),
                             " but the recording's ", dso.name, " has ", expected_hex,
                             ": trace in it is skipped");
      return nullptr;
    }
  }
  struct stat st;
  absl::StatusOr<int> opened =
      base::OpenInputFile(*path, "binary", base::InputKind::kRegularFile, &st);
  if (!opened.ok() || st.st_size == 0) {
    if (opened.ok()) close(*opened);
    warning = absl::StrCat(
        opened.ok() ? absl::StrCat(*path, ": empty file") : std::string(opened.status().message()),
        ": trace in ", dso.name, " is skipped");
    return nullptr;
  }
  int fd = *opened;
  auto mapped = std::make_unique<Mapped>();
  mapped->size = static_cast<size_t>(st.st_size);
  mapped->base = mmap(nullptr, mapped->size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (mapped->base == MAP_FAILED) {
    mapped->base = nullptr;
    warning = absl::StrCat("cannot map ", *path, ": trace in ", dso.name, " is skipped");
    return nullptr;
  }
  mapped->image.path = *path;
  mapped->image.bytes = AsBytes(mapped->base, mapped->size);
  return mapped;
}

}  // namespace perftk::cs_etm
