#include "base/pending_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/creation_mode.h"
#include "base/system_error.h"

namespace perftk::base {
namespace {

struct Entry {
  std::string path;
  PendingFile::Kind kind = PendingFile::Kind::kFile;
  uint64_t sequence = 0;  // creation order; 0: a free slot
};

// The process's list. std::mutex (not absl::Mutex) so that TSan sees it.
class PendingList {
 public:
  std::mutex& mu() { return mu_; }

  size_t Add(std::string path, PendingFile::Kind kind) {
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
    return slot;
  }

  Entry Take(size_t slot) {
    Entry entry = std::move(entries_[slot]);
    entries_[slot] = Entry{};
    free_.push_back(slot);
    --live_;
    return entry;
  }

  const Entry& at(size_t slot) const { return entries_[slot]; }
  void Rename(size_t slot, const std::string& path) { entries_[slot].path = path; }
  size_t live() const { return live_; }

  // Live entries, newest first.
  std::vector<size_t> LiveNewestFirst() const {
    std::vector<size_t> slots;
    slots.reserve(live_);
    for (size_t i = 0; i < entries_.size(); ++i) {
      if (entries_[i].sequence != 0) slots.push_back(i);
    }
    std::sort(slots.begin(), slots.end(),
              [this](size_t a, size_t b) { return entries_[a].sequence > entries_[b].sequence; });
    return slots;
  }

 private:
  std::mutex mu_;
  std::vector<Entry> entries_;
  std::vector<size_t> free_;
  size_t live_ = 0;
  uint64_t sequence_ = 0;
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

bool PendingFile::TakeEntry(std::string* path, Kind* kind) {
  PendingList& list = List();
  size_t slot = std::exchange(slot_, kNone);
  if (slot == kNone || list.at(slot).sequence != sequence_) return false;
  Entry entry = list.Take(slot);
  if (path != nullptr) *path = std::move(entry.path);
  if (kind != nullptr) *kind = entry.kind;
  return true;
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
  std::lock_guard<std::mutex> lock(list.mu());
  if (make() != 0) {
    const int error = errno;
    std::string message = absl::StrCat(path, ": cannot create: ", SystemErrorText(error));
    errno = error;
    if (error == EEXIST) return absl::AlreadyExistsError(message);
    return absl::PermissionDeniedError(message);
  }
  size_t slot = list.Add(path, kind);
  return PendingFile(slot, list.at(slot).sequence);
}

std::string PendingFile::path() const {
  if (slot_ == kNone) return {};
  PendingList& list = List();
  std::lock_guard<std::mutex> lock(list.mu());
  const Entry& entry = list.at(slot_);
  return entry.sequence == sequence_ ? entry.path : std::string();
}

void PendingFile::Keep() {
  if (slot_ == kNone) return;
  std::lock_guard<std::mutex> lock(List().mu());
  TakeEntry(nullptr, nullptr);
}

void PendingFile::Remove() {
  if (slot_ == kNone) return;
  std::lock_guard<std::mutex> lock(List().mu());
  Entry entry;
  if (TakeEntry(&entry.path, &entry.kind)) RemoveFromDisk(entry);
}

absl::Status PendingFile::RenameAndKeep(const std::string& to) {
  std::lock_guard<std::mutex> lock(List().mu());
  if (slot_ == kNone || List().at(slot_).sequence != sequence_) {
    return absl::FailedPreconditionError(absl::StrCat(to, ": its temporary file is gone"));
  }
  if (rename(List().at(slot_).path.c_str(), to.c_str()) != 0) {
    return absl::InternalError(
        absl::StrCat(to, ": cannot move the finished file into place: ", std::strerror(errno)));
  }
  TakeEntry(nullptr, nullptr);
  return absl::OkStatus();
}

absl::Status PendingFile::RenameOver(const std::string& to) {
  std::lock_guard<std::mutex> lock(List().mu());
  if (slot_ == kNone || List().at(slot_).sequence != sequence_) {
    return absl::FailedPreconditionError(absl::StrCat(to, ": its temporary file is gone"));
  }
  struct stat st;
  const bool replaces = lstat(to.c_str(), &st) == 0;
  if (rename(List().at(slot_).path.c_str(), to.c_str()) != 0) {
    return absl::InternalError(
        absl::StrCat(to, ": cannot move the finished file into place: ", std::strerror(errno)));
  }
  if (replaces) {
    TakeEntry(nullptr, nullptr);
  } else {
    List().Rename(slot_, to);
  }
  return absl::OkStatus();
}

size_t RemoveAllPending(bool forever) {
  PendingList& list = List();
  list.mu().lock();
  size_t removed = 0;
  for (size_t slot : list.LiveNewestFirst()) {
    RemoveFromDisk(list.Take(slot));
    ++removed;
  }
  if (!forever) list.mu().unlock();
  return removed;
}

bool RemoveAllPendingAndHold(std::chrono::milliseconds patience) {
  PendingList& list = List();
  const auto give_up = std::chrono::steady_clock::now() + patience;
  while (!list.mu().try_lock()) {
    if (std::chrono::steady_clock::now() >= give_up) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  for (size_t slot : list.LiveNewestFirst()) RemoveFromDisk(list.Take(slot));
  return true;
}

size_t PendingCount() {
  PendingList& list = List();
  std::lock_guard<std::mutex> lock(list.mu());
  return list.live();
}

}  // namespace perftk::base
