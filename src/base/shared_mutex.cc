#include "base/shared_mutex.h"

#include <cstdio>
#include <cstdlib>

namespace perftk::base {
namespace {

// The pthread calls below fail only on misuse (unlocking a lock not held,
// running out of reader slots), never because of input data.
void CheckPthread(int result, const char* what) {
  if (result == 0) return;
  std::fprintf(stderr, "perftk: %s failed with error %d\n", what, result);
  std::abort();
}

}  // namespace

SharedMutex::SharedMutex() {
  pthread_rwlockattr_t attr;
  CheckPthread(pthread_rwlockattr_init(&attr), "pthread_rwlockattr_init");
  CheckPthread(pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP),
               "pthread_rwlockattr_setkind_np");
  CheckPthread(pthread_rwlock_init(&rwlock_, &attr), "pthread_rwlock_init");
  pthread_rwlockattr_destroy(&attr);
}

SharedMutex::~SharedMutex() { pthread_rwlock_destroy(&rwlock_); }

void SharedMutex::Lock() { CheckPthread(pthread_rwlock_wrlock(&rwlock_), "pthread_rwlock_wrlock"); }

void SharedMutex::Unlock() {
  CheckPthread(pthread_rwlock_unlock(&rwlock_), "pthread_rwlock_unlock");
}

void SharedMutex::ReaderLock() {
  CheckPthread(pthread_rwlock_rdlock(&rwlock_), "pthread_rwlock_rdlock");
}

void SharedMutex::ReaderUnlock() {
  CheckPthread(pthread_rwlock_unlock(&rwlock_), "pthread_rwlock_unlock");
}

}  // namespace perftk::base
