#include "cs_etm/binary_images.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "absl/strings/str_cat.h"
#include "base/input_file.h"
#include "base/interrupt.h"
#include "base/printable.h"
#include "base/recorded_name.h"
#include "elf/build_id.h"
#include "elf/build_id_cache.h"
#include "elf/elf_file.h"

namespace perftk::cs_etm {

struct BinaryImages::Mapped {
  Image image;
  void* base = nullptr;
  size_t size = 0;
  base::MappedInputName name;  // for a SIGBUS message: the file shrank
  ~Mapped() {
    name = base::MappedInputName();
    if (base != nullptr) munmap(base, size);
  }
};

namespace {

std::string ToHexOrNone(const std::optional<base::BuildId>& id) {
  return id ? id->ToHex() : "(none)";
}

std::string Basename(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool IsRegularFile(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
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

BinaryImages::BinaryImages(std::string symfs, perf::BuildIdsByPath build_ids, KernelSources kernel)
    : symfs_(std::move(symfs)),
      build_ids_(std::move(build_ids)),
      kernel_sources_(std::move(kernel)),
      id_(++last_table_id) {}

KernelCode::~KernelCode() {
  if (fd >= 0) close(fd);
}

uint32_t KernelCode::Read(uint64_t address, uint32_t size, uint8_t* out) const {
  std::optional<std::pair<uint64_t, uint64_t>> range = image.FileRange(address);
  if (!range) return 0;
  const uint64_t n = std::min<uint64_t>(size, range->second);
  ssize_t got = pread(fd, out, n, static_cast<off_t>(range->first));
  return got > 0 ? static_cast<uint32_t>(got) : 0;
}

const KernelCode* BinaryImages::Kernel(const machine::Dso& kernel) {
  std::call_once(kernel_once_, [this, &kernel] {
    std::string warning;
    kernel_ = LoadKernel(kernel, warning);
    if (warning.empty()) return;
    base::MutexLock lock(mu_);
    warnings_.push_back(std::move(warning));
  });
  return kernel_.get();
}

namespace {

// Where perf and distributions keep a vmlinux, for the running kernel's
// release and by build id (hex).
std::vector<std::string> VmlinuxCandidates(const std::string& build_id_hex) {
  std::vector<std::string> out;
  if (build_id_hex.size() > 2) {
    out = elf::BuildIdCachePaths(elf::BuildIdCacheDir(), "vmlinux", build_id_hex);
    out.push_back(elf::BuildIdDebugPath("/usr/lib/debug", build_id_hex));
  }
  struct utsname name;
  if (uname(&name) == 0) {
    const std::string release = name.release;
    out.push_back(absl::StrCat("/usr/lib/debug/boot/vmlinux-", release));
    out.push_back(absl::StrCat("/boot/vmlinux-", release));
    out.push_back(absl::StrCat("/usr/lib/debug/lib/modules/", release, "/vmlinux"));
    out.push_back(absl::StrCat("/lib/modules/", release, "/build/vmlinux"));
  }
  return out;
}

}  // namespace

std::unique_ptr<KernelCode> BinaryImages::LoadKernel(const machine::Dso& kernel,
                                                     std::string& warning) const {
  auto code = std::make_unique<KernelCode>();
  const base::BuildId expected = ExpectedBuildId(kernel);
  const std::string expected_hex = expected.ToHex();
  if (!kernel_sources_.kcore.empty()) {
    code->path = kernel_sources_.kcore;
    absl::StatusOr<int> fd = base::OpenInputFile(code->path, "kcore (--kcore)");
    if (!fd.ok()) {
      warning = absl::StrCat(fd.status().message(), ": kernel trace is skipped");
      return nullptr;
    }
    code->fd = *fd;
    absl::StatusOr<elf::KernelImage> image = elf::KernelImage::OfCore(code->fd, code->path);
    if (!image.ok()) {
      warning = absl::StrCat("--kcore: ", image.status().message(), ": kernel trace is skipped");
      return nullptr;
    }
    code->image = *std::move(image);
    return code;
  }
  std::vector<std::string> candidates;
  if (!kernel_sources_.vmlinux.empty()) {
    candidates.push_back(kernel_sources_.vmlinux);
  } else if (!expected.empty()) {
    // Only a recorded build id tells a found file is the recorded kernel.
    candidates = VmlinuxCandidates(expected_hex);
  }
  for (const std::string& path : candidates) {
    if (!IsRegularFile(path)) {
      if (!kernel_sources_.vmlinux.empty()) {
        warning = absl::StrCat("--vmlinux ", path,
                               ": no such file: kernel trace is skipped; give --vmlinux PATH (an "
                               "ELF with symbols), or --kcore /proc/kcore");
        return nullptr;
      }
      continue;
    }
    absl::StatusOr<std::unique_ptr<elf::ElfFile>> elf = elf::ElfFile::Open(path);
    if (!elf.ok()) {
      if (!kernel_sources_.vmlinux.empty()) {
        warning = absl::StrCat("--vmlinux: ", elf.status().message(), ": kernel trace is skipped");
        return nullptr;
      }
      continue;
    }
    if (!expected.empty() && !elf::HasBuildId(**elf, expected)) {
      if (!kernel_sources_.vmlinux.empty()) {
        warning = absl::StrCat(path, " has build id ", ToHexOrNone((*elf)->BuildId()),
                               " but the recording's kernel has ", expected_hex,
                               ": kernel trace is skipped");
        return nullptr;
      }
      continue;
    }
    absl::StatusOr<elf::KernelImage> image = elf::KernelImage::Of(**elf);
    if (!image.ok()) {
      if (!kernel_sources_.vmlinux.empty()) {
        warning =
            absl::StrCat("--vmlinux: ", image.status().message(), ": kernel trace is skipped");
        return nullptr;
      }
      continue;
    }
    code->fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (code->fd < 0) continue;
    code->path = path;
    code->image = *std::move(image);
    code->text = elf::SymbolValue(**elf, "_text");
    code->stext = elf::SymbolValue(**elf, "_stext");
    return code;
  }
  warning = absl::StrCat(
      "no kernel image for ", kernel.name,
      expected.empty() ? std::string() : absl::StrCat(" (build id ", expected_hex, ")"),
      ": kernel trace is skipped; give --vmlinux PATH (an ELF with symbols), or --kcore "
      "/proc/kcore to decode on the recorded machine");
  return nullptr;
}

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
    base::MutexLock lock(mu_);
    if (auto it = by_dso_.find(&dso); it != by_dso_.end()) return it->second;
  }
  // Found, checked and mapped without the lock: other threads' code reads
  // go on meanwhile. Two threads may load one Dso; the first to finish wins.
  std::string warning;
  absl::Status error;
  std::unique_ptr<Mapped> loaded = Load(dso, warning, error);
  base::MutexLock lock(mu_);
  if (!error.ok() && failure_.ok()) failure_ = error;
  if (auto it = by_dso_.find(&dso); it != by_dso_.end()) return it->second;
  const Image* image = loaded ? &loaded->image : nullptr;
  if (loaded) mapped_.push_back(std::move(loaded));
  if (!warning.empty()) warnings_.push_back(std::move(warning));
  by_dso_.emplace(&dso, image);
  return image;
}

absl::Status BinaryImages::failure() {
  base::MutexLock lock(mu_);
  return failure_;
}

std::vector<std::string> BinaryImages::TakeWarnings() {
  base::MutexLock lock(mu_);
  std::vector<std::string> out = std::move(warnings_);
  warnings_.clear();
  return out;
}

base::BuildId BinaryImages::ExpectedBuildId(const machine::Dso& dso) const {
  if (!dso.build_id.empty()) return dso.build_id.Printable();
  auto it = build_ids_.find(dso.name);
  return it == build_ids_.end() ? base::BuildId() : it->second.Printable();
}

std::unique_ptr<BinaryImages::Mapped> BinaryImages::Load(const machine::Dso& dso,
                                                         std::string& warning,
                                                         absl::Status& error) const {
  // As perf: the build-id cache first (the file the recording saw, kept by
  // perf record or perf archive), then the recorded path (under --symfs).
  // The vDSO has no path: only the cache holds it.
  const base::BuildId expected = ExpectedBuildId(dso);
  std::vector<std::string> candidates;
  if (!expected.empty()) {
    candidates = elf::BuildIdCachePaths(elf::BuildIdCacheDir(), dso.name, expected);
  }
  const size_t from_cache = candidates.size();
  // A recorded name with '..' is never looked up by path: under --symfs it
  // would leave it (base/recorded_name.h); the cache finds it by id.
  const bool refused = base::HasDotDotComponent(dso.name);
  if (dso.name != elf::kVdsoName && !refused) {
    if (symfs_.empty()) {
      candidates.push_back(dso.name);
    } else {
      candidates.push_back(absl::StrCat(symfs_, "/", dso.name));
      candidates.push_back(absl::StrCat(symfs_, "/", Basename(dso.name)));
    }
  }
  std::optional<std::string> path;
  // An error at one candidate ends the run only if no other has the file.
  absl::Status first_error;
  for (size_t i = 0; i < candidates.size(); ++i) {
    const std::string& candidate = candidates[i];
    struct stat st;
    if (absl::Status s = base::StatWithoutOpening(candidate, "binary", st); !s.ok()) {
      // Only a file that is not there is "missing": any other error (EACCES,
      // EIO, ELOOP...) would otherwise pass as one and drop the binary's
      // trace without a word of why.
      if (!absl::IsNotFound(s) && first_error.ok()) first_error = s;
      continue;
    }
    if (!S_ISREG(st.st_mode)) {
      // Under --symfs or in the build-id cache, the user's own folders: an
      // error, but for a folder at the bare .build-id link (perf's kernel
      // layout, .build-id/xx/yyy/kallsyms). At the bare recorded path
      // (/dev/zero mapped by a JIT), the recording's: no file, as before.
      const bool recorded_path = symfs_.empty() && i + 1 == candidates.size() && i >= from_cache;
      const bool cache_folder = i < from_cache && S_ISDIR(st.st_mode);
      if (recorded_path || cache_folder) continue;
      absl::Status wrong = base::MisplacedFileError(
          candidate, absl::StrCat("the binary of ", base::Printable(dso.name)), st.st_mode);
      // Under --symfs, where the user put the binaries: their mistake,
      // whatever else there is.
      if (i >= from_cache) {
        error = std::move(wrong);
        return nullptr;
      }
      if (first_error.ok()) first_error = std::move(wrong);
      continue;
    }
    path = candidate;
    break;
  }
  if (!path && !first_error.ok()) {
    error = first_error;
    return nullptr;
  }
  if (!path) {
    std::string looked;
    if (from_cache < candidates.size()) {
      looked = absl::StrCat("for ", base::Printable(candidates[from_cache]),
                            candidates.size() > from_cache + 1
                                ? absl::StrCat(" and ", base::Printable(candidates[from_cache + 1]))
                                : "");
    }
    if (from_cache > 0) {
      absl::StrAppend(&looked, looked.empty() ? "" : ", ", "in the build-id cache as ",
                      base::Printable(candidates.front()));
    }
    if (refused) {
      absl::StrAppend(&looked, looked.empty() ? "" : ", ",
                      "not by its recorded name, which has a '..' component");
    }
    warning = absl::StrCat("no file for ", base::Printable(dso.name),
                           looked.empty() ? " (no build id recorded, no path to look at)"
                                          : absl::StrCat(" (looked ", looked, ")"),
                           ": trace in it is skipped");
    return nullptr;
  }
  if (!expected.empty()) {
    absl::StatusOr<std::unique_ptr<elf::ElfFile>> elf = elf::ElfFile::Open(*path);
    if (!elf.ok() && base::IsSystemError(elf.status())) {
      error = elf.status();
      return nullptr;
    }
    if (!elf.ok() || !elf::HasBuildId(**elf, expected)) {
      const std::optional<base::BuildId> actual = elf.ok() ? (*elf)->BuildId() : std::nullopt;
      warning = absl::StrCat(base::Printable(*path), " has build id ", ToHexOrNone(actual),
                             " but the recording's ", base::Printable(dso.name), " has ",
                             expected.ToHex(), ": trace in it is skipped");
      return nullptr;
    }
  }
  struct stat st;
  absl::StatusOr<int> opened =
      base::OpenInputFile(*path, "binary", base::InputKind::kRegularFile, &st);
  if (!opened.ok() && base::IsSystemError(opened.status())) {
    error = opened.status();
    return nullptr;
  }
  if (!opened.ok() || st.st_size == 0) {
    if (opened.ok()) close(*opened);
    warning = absl::StrCat(opened.ok() ? absl::StrCat(base::Printable(*path), ": empty file")
                                       : std::string(opened.status().message()),
                           ": trace in ", base::Printable(dso.name), " is skipped");
    return nullptr;
  }
  int fd = *opened;
  auto mapped = std::make_unique<Mapped>();
  mapped->size = static_cast<size_t>(st.st_size);
  mapped->base = mmap(nullptr, mapped->size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (mapped->base == MAP_FAILED) {
    mapped->base = nullptr;
    warning = absl::StrCat("cannot map ", base::Printable(*path), ": trace in ",
                           base::Printable(dso.name), " is skipped");
    return nullptr;
  }
  mapped->image.path = *path;
  mapped->image.bytes = base::AsBytes(mapped->base, mapped->size);
  mapped->name = base::MappedInputName(mapped->base, mapped->size, base::Printable(*path));
  if (dso.kernel_space) {
    absl::StatusOr<std::unique_ptr<elf::ElfFile>> elf = elf::ElfFile::Open(*path);
    if (elf.ok() && (*elf)->type() == ET_REL) {
      absl::StatusOr<elf::ModuleLayout> layout = elf::ModuleLayout::Of(**elf);
      if (!layout.ok()) {
        warning = absl::StrCat(layout.status().message(), ": trace in ", base::Printable(dso.name),
                               " is skipped");
        return nullptr;
      }
      mapped->image.module = *std::move(layout);
    }
  }
  return mapped;
}

}  // namespace perftk::cs_etm
