#include "base/pending_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/creation_mode.h"
#include "base/mutex.h"
#include "base/system_error.h"

namespace perftk::base {
namespace {

struct Entry {
  std::string path;
  PendingFile::Kind kind = PendingFile::Kind::kFile;
  uint64_t sequence = 0;  // creation order; 0: a free slot
};

// The process's list, behind one lock (base::Mutex, which TSan sees).
class PendingList {
 public:
  Mutex mu;

  // Lists `path`; its slot and sequence number.
  std::pair<size_t, uint64_t> Add(std::string path, PendingFile::Kind kind)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    size_t slot;
    if (free_.empty()) {
      slot = entries_.size();
      entries_.emplace_back();
    } else {
      slot = free_.back();
      free_.pop_back();
    }
    entries_[slot] = Entry{std::move(path), kind, ++sequence_};
    ++live_;
    return {slot, sequence_};
  }

  // The entry of a handle (slot, sequence) while it is still listed: an
  // interrupt or RemoveAllPending may have taken it, and a later file its
  // slot.
  Entry* Find(size_t slot, uint64_t sequence) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    if (slot >= entries_.size() || entries_[slot].sequence != sequence) return nullptr;
    return &entries_[slot];
  }

  Entry Take(size_t slot) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    Entry entry = std::move(entries_[slot]);
    entries_[slot] = Entry{};
    free_.push_back(slot);
    --live_;
    return entry;
  }

  // Takes a handle's entry off the list if it is still there.
  std::optional<Entry> TakeListed(size_t slot, uint64_t sequence)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    if (Find(slot, sequence) == nullptr) return std::nullopt;
    return Take(slot);
  }

  size_t live() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) { return live_; }

  // Live entries, newest first.
  std::vector<size_t> LiveNewestFirst() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    std::vector<size_t> slots;
    slots.reserve(live_);
    for (size_t i = 0; i < entries_.size(); ++i) {
      if (entries_[i].sequence != 0) slots.push_back(i);
    }
    std::sort(slots.begin(), slots.end(),
              [this](size_t a, size_t b) ABSL_NO_THREAD_SAFETY_ANALYSIS {
                return entries_[a].sequence > entries_[b].sequence;
              });
    return slots;
  }

 private:
  std::vector<Entry> entries_ ABSL_GUARDED_BY(mu);
  std::vector<size_t> free_ ABSL_GUARDED_BY(mu);
  size_t live_ ABSL_GUARDED_BY(mu) = 0;
  uint64_t sequence_ ABSL_GUARDED_BY(mu) = 0;
};

PendingList& List() {
  static PendingList* list = new PendingList();  // never destroyed: used until exit
  return *list;
}

void RemoveFromDisk(const Entry& entry) {
  if (entry.kind == PendingFile::Kind::kDirectory) {
    rmdir(entry.path.c_str());  // only when empty: what else is in it is not ours
  } else {
    unlink(entry.path.c_str());
  }
}

}  // namespace

PendingFile::PendingFile(PendingFile&& other) noexcept
    : slot_(std::exchange(other.slot_, kNone)), sequence_(other.sequence_) {}

PendingFile& PendingFile::operator=(PendingFile&& other) noexcept {
  if (this != &other) {
    Remove();
    slot_ = std::exchange(other.slot_, kNone);
    sequence_ = other.sequence_;
  }
  return *this;
}

PendingFile::~PendingFile() { Remove(); }

absl::StatusOr<PendingFile> PendingFile::CreateNew(const std::string& path, int* fd) {
  absl::StatusOr<PendingFile> made = Make(path, Kind::kFile, [&] {
    *fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, FileCreationMode());
    return *fd < 0 ? -1 : 0;
  });
  if (!made.ok()) *fd = -1;
  return made;
}

absl::StatusOr<PendingFile> PendingFile::Make(const std::string& path, Kind kind,
                                              absl::FunctionRef<int()> make) {
  PendingList& list = List();
  MutexLock lock(list.mu);
  if (make() != 0) {
    const int error = errno;
    std::string message = absl::StrCat(path, ": cannot create: ", SystemErrorText(error));
    errno = error;
    if (error == EEXIST) return absl::AlreadyExistsError(message);
    return absl::PermissionDeniedError(message);
  }
  const auto [slot, sequence] = list.Add(path, kind);
  return PendingFile(slot, sequence);
}

std::string PendingFile::path() const {
  if (slot_ == kNone) return {};
  PendingList& list = List();
  MutexLock lock(list.mu);
  const Entry* entry = list.Find(slot_, sequence_);
  return entry != nullptr ? entry->path : std::string();
}

void PendingFile::Keep() {
  if (slot_ == kNone) return;
  PendingList& list = List();
  MutexLock lock(list.mu);
  list.TakeListed(std::exchange(slot_, kNone), sequence_);
}

void PendingFile::Remove() {
  if (slot_ == kNone) return;
  PendingList& list = List();
  MutexLock lock(list.mu);
  if (std::optional<Entry> entry = list.TakeListed(std::exchange(slot_, kNone), sequence_)) {
    RemoveFromDisk(*entry);
  }
}

absl::Status PendingFile::RenameAndKeep(const std::string& to) {
  PendingList& list = List();
  MutexLock lock(list.mu);
  const Entry* entry = slot_ == kNone ? nullptr : list.Find(slot_, sequence_);
  if (entry == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(to, ": its temporary file is gone"));
  }
  if (rename(entry->path.c_str(), to.c_str()) != 0) {
    return absl::InternalError(
        absl::StrCat(to, ": cannot move the finished file into place: ", std::strerror(errno)));
  }
  list.TakeListed(std::exchange(slot_, kNone), sequence_);
  return absl::OkStatus();
}

absl::Status PendingFile::RenameOver(const std::string& to) {
  PendingList& list = List();
  MutexLock lock(list.mu);
  Entry* entry = slot_ == kNone ? nullptr : list.Find(slot_, sequence_);
  if (entry == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(to, ": its temporary file is gone"));
  }
  struct stat st;
  const bool replaces = lstat(to.c_str(), &st) == 0;
  if (rename(entry->path.c_str(), to.c_str()) != 0) {
    return absl::InternalError(
        absl::StrCat(to, ": cannot move the finished file into place: ", std::strerror(errno)));
  }
  if (replaces) {
    list.TakeListed(std::exchange(slot_, kNone), sequence_);
  } else {
    entry->path = to;
  }
  return absl::OkStatus();
}

size_t RemoveAllPending(bool forever) ABSL_NO_THREAD_SAFETY_ANALYSIS {
  // Not a MutexLock: with `forever` the lock stays held until the process
  // ends, so that no other thread lists a file after this.
  PendingList& list = List();
  list.mu.Lock();
  size_t removed = 0;
  for (size_t slot : list.LiveNewestFirst()) {
    RemoveFromDisk(list.Take(slot));
    ++removed;
  }
  if (!forever) list.mu.Unlock();
  return removed;
}

bool RemoveAllPendingAndHold(std::chrono::milliseconds patience) ABSL_NO_THREAD_SAFETY_ANALYSIS {
  // Held on return, until the process ends (see the header).
  PendingList& list = List();
  const auto give_up = std::chrono::steady_clock::now() + patience;
  while (!list.mu.TryLock()) {
    if (std::chrono::steady_clock::now() >= give_up) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  for (size_t slot : list.LiveNewestFirst()) RemoveFromDisk(list.Take(slot));
  return true;
}

size_t PendingCount() {
  PendingList& list = List();
  MutexLock lock(list.mu);
  return list.live();
}

}  // namespace perftk::base
