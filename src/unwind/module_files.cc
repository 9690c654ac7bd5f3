#include "unwind/module_files.h"

#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <gelf.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/input_file.h"
#include "base/printable.h"
#include "base/recorded_name.h"
#include "base/system_error.h"
#include "elf/build_id_cache.h"
#include "elf/vdso.h"

namespace perftk::unwind {
namespace {

// This process's vDSO image as a file (a memfd, made once, kept open), for
// a recording made on this kernel; "" when there is none.
const std::string& OwnVdsoFile() {
  static const std::string* path = [] {
    absl::string_view image = elf::OwnVdsoImage();
    const int fd = image.empty() ? -1 : memfd_create("perftk-vdso", MFD_CLOEXEC);
    if (fd < 0) return new std::string();
    if (write(fd, image.data(), image.size()) != static_cast<ssize_t>(image.size())) {
      close(fd);
      return new std::string();
    }
    return new std::string(absl::StrCat("/proc/self/fd/", fd));
  }();
  return *path;
}

// The PT_LOAD segments of an ELF file, or nullopt if `fd` is not one.
std::optional<std::vector<ModuleFile::Load>> ReadLoads(Elf* elf) {
  size_t count = 0;
  if (elf_kind(elf) != ELF_K_ELF || elf_getphdrnum(elf, &count) != 0) return std::nullopt;
  std::vector<ModuleFile::Load> loads;
  for (size_t i = 0; i < count; ++i) {
    GElf_Phdr phdr;
    if (gelf_getphdr(elf, static_cast<int>(i), &phdr) == nullptr) return std::nullopt;
    if (phdr.p_type == PT_LOAD) loads.push_back({phdr.p_offset, phdr.p_vaddr, phdr.p_filesz});
  }
  if (loads.empty()) return std::nullopt;
  return loads;
}

// The recorded build id matches the file's, as perf compares them.
bool HasBuildId(Elf* elf, const base::BuildId& recorded) {
  const void* bytes = nullptr;
  const ssize_t size = dwelf_elf_gnu_build_id(elf, &bytes);
  if (size <= 0) return false;
  return recorded.Matches(base::BuildId::FromBytes(
      std::span<const uint8_t>(static_cast<const uint8_t*>(bytes), static_cast<size_t>(size))));
}

}  // namespace

ModuleFile::ModuleFile(std::string path, int fd, std::vector<Load> loads)
    : path_(std::move(path)), fd_(fd), loads_(std::move(loads)) {}

ModuleFile::~ModuleFile() { close(fd_); }

bool ModuleFile::ReadWord(uint64_t offset, uint64_t& word) const {
  return pread(fd_, &word, sizeof word, static_cast<off_t>(offset)) ==
         static_cast<ssize_t>(sizeof word);
}

uint64_t ModuleFile::LoadBias(const machine::Map& map) const {
  const Load* chosen = &loads_.front();
  for (const Load& load : loads_) {
    const uint64_t page_start = load.offset & ~uint64_t{0xfff};
    if (page_start <= map.pgoff && map.pgoff < load.offset + load.filesz) {
      chosen = &load;
      break;
    }
  }
  return map.start - map.pgoff + chosen->offset - chosen->vaddr;
}

absl::Status OpenFailure(const std::string& path, int error) {
  return absl::FailedPreconditionError(
      absl::StrCat(base::Printable(path), ": cannot open: ", base::SystemErrorText(error)));
}

ModuleFiles::ModuleFiles(std::string symfs, perf::BuildIdsByPath build_ids)
    : symfs_(std::move(symfs)), build_ids_(std::move(build_ids)) {
  elf_version(EV_CURRENT);  // here, not in Open: lanes open files at once
}

std::unique_ptr<ModuleFile> ModuleFiles::Open(const std::string& path,
                                              const base::BuildId& build_id,
                                              absl::Status& error) const {
  absl::StatusOr<int> opened = base::OpenInputFile(path, "binary");
  if (!opened.ok()) {
    // Missing or not a file: the next candidate. Any other error (EMFILE,
    // EACCES, EIO) would leave samples without call chains for a reason
    // of this machine's.
    const absl::Status& s = opened.status();
    if (base::IsSystemError(s)) error = s;
    return nullptr;
  }
  const int fd = *opened;
  Elf* elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr);
  std::optional<std::vector<ModuleFile::Load>> loads;
  if (elf != nullptr && (build_id.empty() || HasBuildId(elf, build_id))) loads = ReadLoads(elf);
  elf_end(elf);
  if (!loads) {
    close(fd);
    return nullptr;
  }
  return std::make_unique<ModuleFile>(path, fd, *std::move(loads));
}

std::unique_ptr<ModuleFile> ModuleFiles::Locate(const machine::Dso& dso) const {
  base::BuildId build_id = dso.build_id;
  if (build_id.empty()) {
    if (auto it = build_ids_.find(dso.name); it != build_ids_.end()) build_id = it->second;
  }
  // Where the file may be. Under --symfs and in the build-id cache, the
  // user's own folders, a FIFO or device (under --symfs a folder too) is an
  // error; at the recorded path, the recording's word, only no file. (A
  // folder at the bare .build-id link is perf's kernel layout,
  // .build-id/xx/yyy/kallsyms: not the file either.)
  enum class Place { kSymfs, kRecorded, kCache, kOwn };
  std::vector<std::pair<std::string, Place>> candidates;
  // A recorded name with '..' is never looked up by path: under --symfs it
  // would leave it (base/recorded_name.h); the cache finds it by id.
  if (dso.name.starts_with("/") && !base::HasDotDotComponent(dso.name)) {
    if (!symfs_.empty()) candidates.emplace_back(absl::StrCat(symfs_, dso.name), Place::kSymfs);
    candidates.emplace_back(dso.name, Place::kRecorded);
  }
  if (!build_id.empty()) {
    for (std::string& path : elf::BuildIdCachePaths(elf::BuildIdCacheDir(), dso.name, build_id)) {
      candidates.emplace_back(std::move(path), Place::kCache);
    }
  }
  if (dso.name == elf::kVdsoName && !build_id.empty()) {
    // Recorded on this kernel: this process has the same image (Open
    // checks the build id).
    if (const std::string& own = OwnVdsoFile(); !own.empty()) {
      candidates.emplace_back(own, Place::kOwn);
    }
  }
  // An error at one candidate ends the run only if no other has the file.
  absl::Status first_error;
  for (const auto& [path, place] : candidates) {
    struct stat st;
    if (absl::Status s = base::StatWithoutOpening(path, "binary", st); !s.ok()) {
      if (!absl::IsNotFound(s) && first_error.ok()) first_error = s;
      continue;
    }
    if (!S_ISREG(st.st_mode)) {
      absl::Status wrong = base::MisplacedFileError(
          path, absl::StrCat("the binary of ", base::Printable(dso.name)), st.st_mode);
      // Under --symfs, where the user put the binaries: their mistake,
      // whatever else there is.
      if (place == Place::kSymfs) {
        NoteFailure(std::move(wrong));
        return nullptr;
      }
      if (place == Place::kCache && !S_ISDIR(st.st_mode) && first_error.ok()) {
        first_error = std::move(wrong);
      }
      continue;
    }
    absl::Status error;
    if (auto file = Open(path, build_id, error)) return file;
    if (!error.ok() && first_error.ok()) first_error = error;
  }
  if (!first_error.ok()) NoteFailure(first_error);
  return nullptr;
}

bool ModuleFiles::AddBuildId(const std::string& name, const base::BuildId& id) {
  build_ids_[name] = id;
  // Only answers of "not found" are dropped: a file found is in use by the
  // lane's unwinders, and it had to match the id it was found by anyway.
  return absl::erase_if(files_, [&](const auto& entry) {
           return entry.second == nullptr && entry.first->name == name;
         }) > 0;
}

const ModuleFile* ModuleFiles::Find(const machine::Dso* dso) {
  auto [it, inserted] = files_.try_emplace(dso);
  if (inserted && !dso->kernel_space) it->second = Locate(*dso);
  return it->second.get();
}

}  // namespace perftk::unwind
