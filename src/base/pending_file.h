// PendingFile: a path this run created on disk and will remove again unless
// the run keeps it.
//
// Every file, link or directory a run creates goes on one process-wide list
// the moment it is created (the creating call runs under the list's lock,
// so nothing exists on disk unlisted). It leaves the list in one of three
// ways:
//   - Keep(): the run succeeded, the path stays;
//   - Remove() or the destructor of a PendingFile not kept: the run failed,
//     the path is removed;
//   - RemoveAllPending(): the run is being interrupted (see interrupt.h),
//     every listed path is removed, newest first, so a directory goes after
//     what was made in it.
// Thread-safe: files may be created on any thread.
#ifndef PERFTK_BASE_PENDING_FILE_H_
#define PERFTK_BASE_PENDING_FILE_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"

namespace perftk::base {

class PendingFile {
 public:
  enum class Kind { kFile, kDirectory };

  PendingFile() = default;
  PendingFile(PendingFile&& other) noexcept;
  PendingFile& operator=(PendingFile&& other) noexcept;
  PendingFile(const PendingFile&) = delete;
  PendingFile& operator=(const PendingFile&) = delete;
  ~PendingFile();

  // Creates a new regular file (mode FileCreationMode(), creation_mode.h;
  // O_EXCL: never an existing one)
  // and lists it; `*fd` receives its descriptor, open for writing.
  // An existing path gives AlreadyExistsError.
  static absl::StatusOr<PendingFile> CreateNew(const std::string& path, int* fd);

  // Runs `make` (which creates `path`: mkdir, link, symlink..., returning 0
  // or -1 with errno set) under the list's lock, and lists `path` if it
  // succeeded. On failure, errno is left as `make` set it.
  static absl::StatusOr<PendingFile> Make(const std::string& path, Kind kind,
                                          absl::FunctionRef<int()> make);

  bool listed() const { return slot_ != kNone; }
  // The path while listed, else empty.
  std::string path() const;

  // Takes the path off the list and leaves it on disk.
  void Keep();
  // Removes the path from disk and from the list.
  void Remove();
  // Renames the listed file to `to` and keeps it there, in one step under
  // the list's lock (an interrupt removes either the file or nothing).
  absl::Status RenameAndKeep(const std::string& to);
  // Renames the listed file to `to`. Where `to` did not exist, the file
  // stays listed under its new name (a new file of the run); where it
  // existed, the file has replaced it whole and leaves the list.
  absl::Status RenameOver(const std::string& to);

 private:
  static constexpr size_t kNone = ~size_t{0};
  PendingFile(size_t slot, uint64_t sequence) : slot_(slot), sequence_(sequence) {}
  size_t slot_ = kNone;
  uint64_t sequence_ = 0;  // the entry's, told apart from a later user of the slot
};

// Removes every listed path, newest first, and empties the list; returns
// how many were removed. Holds the list's lock until the process ends when
// `forever` is set, so that no file can be created after it.
size_t RemoveAllPending(bool forever = false);

// The same with the lock held for good, for a run ending at once (out of
// memory): waits at most `patience` for a thread that holds the list's lock
// (it may be the caller, whose allocation failed under it) and returns
// false, having removed nothing, when it is not had by then.
bool RemoveAllPendingAndHold(std::chrono::milliseconds patience);

// How many paths are listed now (tests).
size_t PendingCount();

}  // namespace perftk::base

#endif  // PERFTK_BASE_PENDING_FILE_H_
