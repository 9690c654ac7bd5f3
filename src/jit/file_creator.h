// FileCreator: creates files (base/creation_mode.h) on a thread of its own, ahead of
// the thread that writes them, in the order they are asked for.
//
// The kernel creates the files of one directory one at a time (under the
// directory's lock), and creating a small file costs more than composing
// and writing it; a writer that names its files ahead of time can compose
// and write earlier files meanwhile.
//
// Request() queues a path; Take() returns the oldest request not yet taken
// as a base::GeneratedFile, waiting for it. The thread only creates files
// that do not exist (base::PendingFile::CreateNew, O_EXCL); a path that
// exists, or that cannot be created so, is left to Take(), which calls
// base::GeneratedFile::Create itself, as without the thread: an existing
// file is replaced whole when its new contents are closed, and a failure is
// the same error. When the creator is destroyed, the files its thread
// created that were not taken are closed and removed, and the thread is
// joined: a run that stops half-way leaves the directory as one that wrote
// the files one at a time.
//
// Without `threaded`, or when the system will not start a thread, Take()
// opens the file on the caller's thread: the same opens, in the same order,
// one at a time.
//
// One thread calls Request and Take; the creator uses its own thread only.
#ifndef PERFTK_JIT_FILE_CREATOR_H_
#define PERFTK_JIT_FILE_CREATOR_H_

#include <cstddef>
#include <deque>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "base/generated_file.h"
#include "base/mutex.h"
#include "base/pending_file.h"

namespace perftk::jit {

class FileCreator {
 public:
  explicit FileCreator(bool threaded);
  ~FileCreator();
  FileCreator(const FileCreator&) = delete;
  FileCreator& operator=(const FileCreator&) = delete;

  void Request(std::string path);
  // The oldest untaken request's file; at least one must be pending.
  absl::StatusOr<base::GeneratedFile> Take();

  // Whether files are created on a thread of their own.
  bool threaded() const { return threaded_; }

  // Requests not taken yet.
  size_t pending() const { return requested_ - taken_; }

 private:
  struct Created {
    std::string path;
    int fd = -1;  // -1: Take() creates it
    base::PendingFile pending;
  };

  // Each thread, when it has to wait for the other, waits for this many
  // paths or files (or for the last): a wake-up per file would cost a
  // futex call and, when the two threads share one CPU, a context switch
  // each.
  static constexpr size_t kWakeBatch = 16;

  void CreateUntilStopped();
  bool CreatorCanGoOn() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool TakeCanGoOn() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  bool threaded_ = false;  // the creator thread runs
  size_t requested_ = 0;
  size_t taken_ = 0;
  std::deque<std::string> inline_requests_;  // without a thread

  mutable base::Mutex mu_;
  base::CondVar work_ready_;     // for the creator
  base::CondVar created_ready_;  // for Take
  std::deque<std::string> requests_ ABSL_GUARDED_BY(mu_);
  std::deque<Created> created_ ABSL_GUARDED_BY(mu_);
  bool taker_waiting_ ABSL_GUARDED_BY(mu_) = false;  // Take() waits for a file
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace perftk::jit

#endif  // PERFTK_JIT_FILE_CREATOR_H_
