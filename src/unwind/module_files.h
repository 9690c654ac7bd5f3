// The ELF files behind a recording's user mappings, found and opened once:
// the unwinder reads their CFI (through libdw) and the memory their mappings
// show (through ReadWord).
//
// A Dso is looked up at SYMFS/NAME (with --symfs), at NAME, then in perf's
// build-id cache (elf::BuildIdCacheDir(): .build-id/xx/yyyy/elf,
// and for [vdso] .build-id/xx/yyyy/vdso and [vdso]/<id>/vdso, where perf
// record keeps the vDSO image), and a [vdso] last in this process's own
// vDSO. When the recording gives the file's build id (its BUILD_ID feature
// or an MMAP2 with a build id), a candidate with another build id is
// skipped: a changed file, or another kernel's vDSO, is not guessed at; a
// [vdso] without a recorded build id is not looked for. Files are kept open for the life of
// ModuleFiles; their number grows with the distinct objects the samples hit, not with the samples.
//
// Not thread-safe.
#ifndef PERFTK_UNWIND_MODULE_FILES_H_
#define PERFTK_UNWIND_MODULE_FILES_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "machine/dso.h"
#include "machine/map.h"
#include "perf/features.h"

namespace perftk::unwind {

// One opened ELF file.
class ModuleFile {
 public:
  struct Load {
    uint64_t offset = 0;  // p_offset
    uint64_t vaddr = 0;   // p_vaddr
    uint64_t filesz = 0;
  };

  ModuleFile(std::string path, int fd, std::vector<Load> loads);
  ~ModuleFile();
  ModuleFile(const ModuleFile&) = delete;
  ModuleFile& operator=(const ModuleFile&) = delete;

  const std::string& path() const { return path_; }
  int fd() const { return fd_; }
  // The 8 bytes at file offset `offset`; false past the end of the file.
  bool ReadWord(uint64_t offset, uint64_t& word) const;
  // What to add to the file's p_vaddr addresses to get the addresses `map`
  // shows: found through the PT_LOAD holding the map's file offset.
  uint64_t LoadBias(const machine::Map& map) const;

 private:
  std::string path_;
  int fd_;
  std::vector<Load> loads_;
};

// The error of a file that could not be opened for `error` (errno), not for
// its absence: EMFILE names the limit to raise.
absl::Status OpenFailure(const std::string& path, int error);

class ModuleFiles {
 public:
  // `build_ids`: file name -> build id, from the recording's header.
  ModuleFiles(std::string symfs, perf::BuildIdsByPath build_ids);

  // The file of `dso`, or null when none is found or it is not an ELF file
  // of the recorded build id.
  const ModuleFile* Find(const machine::Dso* dso);
  // Files named `name` are the ones with build id `id` from now on (a
  // pipe's HEADER_BUILD_ID record); Find looks again for those it found
  // none for. Returns whether it will (an answer was dropped).
  bool AddBuildId(const std::string& name, const base::BuildId& id);
  // The first error opening a file for another reason than its absence or
  // its type (EMFILE, EACCES, EIO): the run must end with it. OK if none.
  const absl::Status& failure() const { return failure_; }
  // Keeps `error` as the failure when there is none yet (the lane's
  // unwinders report what they could not open).
  void NoteFailure(absl::Status error) const {
    if (failure_.ok()) failure_ = std::move(error);
  }

 private:
  // The file at `path` if it is an ELF file with build id `build_id` (any
  // when empty); null otherwise, with `error` set when it could not be
  // opened for a reason of the system's (EMFILE, EACCES, EIO).
  std::unique_ptr<ModuleFile> Open(const std::string& path, const base::BuildId& build_id,
                                   absl::Status& error) const;
  std::unique_ptr<ModuleFile> Locate(const machine::Dso& dso) const;

  std::string symfs_;
  perf::BuildIdsByPath build_ids_;
  absl::flat_hash_map<const machine::Dso*, std::unique_ptr<ModuleFile>> files_;
  mutable absl::Status failure_;  // set by Open, which is otherwise const
};

}  // namespace perftk::unwind

#endif  // PERFTK_UNWIND_MODULE_FILES_H_
