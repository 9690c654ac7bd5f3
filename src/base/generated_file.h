// GeneratedFile: a file a run writes beside its output (jit's ELF files,
// build-id cache copies), never seen half-written.
//
// A path that does not exist is created new (O_EXCL) and is a pending file
// of the run (pending_file.h): removed if the run fails or is interrupted,
// until the run keeps it. Where a file of that name exists, the new one is
// written to PATH.tmp.<pid> beside it and renamed over it by Close: the old
// file stays whole until then, and the replacement is final. (A symbolic
// link there is replaced, not written through.) A folder in the way is an
// error. CreateStaged writes beside the path and renames in Close whether
// or not a file is there, for a file written over a long time that must
// not be seen at its path unfinished; a new one stays a pending file of
// the run after Close, as with Create.
#ifndef PERFTK_BASE_GENERATED_FILE_H_
#define PERFTK_BASE_GENERATED_FILE_H_

#include <sys/stat.h>

#include <cstdint>
#include <span>
#include <string>

#include "absl/status/statusor.h"
#include "base/pending_file.h"

namespace perftk::base {

class GeneratedFile {
 public:
  GeneratedFile() = default;
  GeneratedFile(GeneratedFile&& other) noexcept;
  GeneratedFile& operator=(GeneratedFile&& other) noexcept;
  GeneratedFile(const GeneratedFile&) = delete;
  GeneratedFile& operator=(const GeneratedFile&) = delete;
  // Closes a file not closed yet and removes it (it was not finished).
  ~GeneratedFile();

  static absl::StatusOr<GeneratedFile> Create(const std::string& path);
  static absl::StatusOr<GeneratedFile> CreateStaged(const std::string& path);
  // A file created new already (PendingFile::CreateNew on another thread).
  GeneratedFile(std::string path, int fd, PendingFile pending);

  const std::string& path() const { return path_; }
  int fd() const { return fd_; }

  // Writes all of `bytes` (EINTR and short writes handled).
  absl::Status Write(std::span<const std::byte> bytes);
  // Writes all of `bytes` at `offset`, over what is there; Write goes on
  // where it was.
  absl::Status WriteAt(std::span<const std::byte> bytes, uint64_t offset);
  // Flushes the file to the disk (fsync), for a file that must be whole
  // there before Close puts it in place.
  absl::Status Sync();
  // Closes the file and puts a replacement in place. Returns its stat.
  absl::StatusOr<struct stat> Close();
  // After Close: the pending entry of a file that is new at its path (for
  // the run to keep once it succeeds); an empty one for a replacement.
  PendingFile TakePending() { return std::move(pending_); }

 private:
  absl::Status Error(const char* what, int error) const;

  std::string path_;
  int fd_ = -1;
  bool staged_ = false;  // written to a temporary file, renamed by Close
  PendingFile pending_;
};

}  // namespace perftk::base

#endif  // PERFTK_BASE_GENERATED_FILE_H_
