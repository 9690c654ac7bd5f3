// SharedMutex: a reader/writer lock that lets a waiting writer in ahead of
// readers that arrive after it, so a stream of lookups from decoder threads
// cannot starve the thread that applies MMAPs. It meets the SharedMutex
// requirements, so std::unique_lock and std::shared_lock work with it.
//
// Built on a glibc rwlock set to prefer writers: std::shared_mutex prefers
// readers (writers starve), and absl::Mutex is invisible to ThreadSanitizer
// because Debian's libabsl is not built with it.
#ifndef PERFTK_MACHINE_SHARED_MUTEX_H_
#define PERFTK_MACHINE_SHARED_MUTEX_H_

#include <pthread.h>

namespace perftk::machine {

class SharedMutex {
 public:
  SharedMutex();
  ~SharedMutex();
  SharedMutex(const SharedMutex&) = delete;
  SharedMutex& operator=(const SharedMutex&) = delete;

  void lock();
  bool try_lock();
  void unlock();
  void lock_shared();
  bool try_lock_shared();
  void unlock_shared();

 private:
  pthread_rwlock_t rwlock_;
};

}  // namespace perftk::machine

#endif  // PERFTK_MACHINE_SHARED_MUTEX_H_
