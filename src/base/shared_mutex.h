// SharedMutex: a reader/writer lock that lets a waiting writer in ahead of
// readers that arrive after it, so a stream of lookups from decoder threads
// cannot starve the thread that applies MMAPs; with the thread-safety
// annotations clang's -Wthread-safety checks, like base/mutex.h's Mutex.
// WriterMutexLock and ReaderMutexLock hold it for a scope.
//
// Built on a glibc rwlock set to prefer writers: std::shared_mutex prefers
// readers (writers starve), and absl::Mutex is invisible to ThreadSanitizer
// because Debian's libabsl is not built with it.
#ifndef PERFTK_BASE_SHARED_MUTEX_H_
#define PERFTK_BASE_SHARED_MUTEX_H_

#include <pthread.h>

#include "absl/base/thread_annotations.h"

namespace perftk::base {

class ABSL_LOCKABLE SharedMutex {
 public:
  SharedMutex();
  ~SharedMutex();
  SharedMutex(const SharedMutex&) = delete;
  SharedMutex& operator=(const SharedMutex&) = delete;

  void Lock() ABSL_EXCLUSIVE_LOCK_FUNCTION();
  void Unlock() ABSL_UNLOCK_FUNCTION();
  void ReaderLock() ABSL_SHARED_LOCK_FUNCTION();
  void ReaderUnlock() ABSL_UNLOCK_FUNCTION();

 private:
  pthread_rwlock_t rwlock_;
};

// Holds `mu` exclusively from its construction to its destruction.
class ABSL_SCOPED_LOCKABLE WriterMutexLock {
 public:
  explicit WriterMutexLock(SharedMutex& mu) ABSL_EXCLUSIVE_LOCK_FUNCTION(mu) : mu_(mu) {
    mu_.Lock();
  }
  ~WriterMutexLock() ABSL_UNLOCK_FUNCTION() { mu_.Unlock(); }
  WriterMutexLock(const WriterMutexLock&) = delete;
  WriterMutexLock& operator=(const WriterMutexLock&) = delete;

 private:
  SharedMutex& mu_;
};

// Holds `mu` shared from its construction to its destruction.
class ABSL_SCOPED_LOCKABLE ReaderMutexLock {
 public:
  explicit ReaderMutexLock(SharedMutex& mu) ABSL_SHARED_LOCK_FUNCTION(mu) : mu_(mu) {
    mu_.ReaderLock();
  }
  ~ReaderMutexLock() ABSL_UNLOCK_FUNCTION() { mu_.ReaderUnlock(); }
  ReaderMutexLock(const ReaderMutexLock&) = delete;
  ReaderMutexLock& operator=(const ReaderMutexLock&) = delete;

 private:
  SharedMutex& mu_;
};

}  // namespace perftk::base

#endif  // PERFTK_BASE_SHARED_MUTEX_H_
