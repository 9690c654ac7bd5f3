// Mutex, MutexLock and CondVar: std::mutex and std::condition_variable with
// the thread-safety annotations clang's -Wthread-safety checks, so that a
// member can be ABSL_GUARDED_BY a Mutex and a function can require it held.
//
// std::mutex, not absl::Mutex, underneath: Debian's Abseil is built without
// ThreadSanitizer's annotations, so TSan would not see absl::Mutex locking;
// and libstdc++'s std::mutex carries no annotations clang could check.
#ifndef PERFTK_BASE_MUTEX_H_
#define PERFTK_BASE_MUTEX_H_

#include <condition_variable>
#include <mutex>

#include "absl/base/thread_annotations.h"

namespace perftk::base {

class ABSL_LOCKABLE Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void Lock() ABSL_EXCLUSIVE_LOCK_FUNCTION() { mu_.lock(); }
  void Unlock() ABSL_UNLOCK_FUNCTION() { mu_.unlock(); }
  // Takes the lock if no one holds it, without waiting.
  bool TryLock() ABSL_EXCLUSIVE_TRYLOCK_FUNCTION(true) { return mu_.try_lock(); }

 private:
  friend class CondVar;
  std::mutex mu_;
};

// Holds `mu` from its construction to its destruction.
class ABSL_SCOPED_LOCKABLE MutexLock {
 public:
  explicit MutexLock(Mutex& mu) ABSL_EXCLUSIVE_LOCK_FUNCTION(mu) : mu_(mu) { mu_.Lock(); }
  ~MutexLock() ABSL_UNLOCK_FUNCTION() { mu_.Unlock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

 private:
  Mutex& mu_;
};

// Wait releases `mu` while it sleeps and holds it again when it returns,
// which may be spuriously: callers wait in a loop on their condition.
class CondVar {
 public:
  void Wait(Mutex& mu) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    std::unique_lock<std::mutex> lock(mu.mu_, std::adopt_lock);
    cv_.wait(lock);
    lock.release();  // still held: the caller's lock owns it
  }
  void NotifyOne() { cv_.notify_one(); }
  void NotifyAll() { cv_.notify_all(); }

 private:
  std::condition_variable cv_;
};

}  // namespace perftk::base

#endif  // PERFTK_BASE_MUTEX_H_
