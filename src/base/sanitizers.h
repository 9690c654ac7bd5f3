// Which sanitizer this build runs under, for the few places that must
// differ there. GCC says __SANITIZE_ADDRESS__ and __SANITIZE_THREAD__;
// clang (before 16) answers only __has_feature.
//   PERFTK_ASAN       1 under AddressSanitizer, else 0;
//   PERFTK_SANITIZED  1 under any sanitizer whose runtime brings its own
//                     allocator (and operator new/delete): address,
//                     thread, memory, hwaddress; else 0.
#ifndef PERFTK_BASE_SANITIZERS_H_
#define PERFTK_BASE_SANITIZERS_H_

#if defined(__SANITIZE_ADDRESS__)
#define PERFTK_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PERFTK_ASAN 1
#endif
#endif
#ifndef PERFTK_ASAN
#define PERFTK_ASAN 0
#endif

#if PERFTK_ASAN || defined(__SANITIZE_THREAD__)
#define PERFTK_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer) || \
    __has_feature(hwaddress_sanitizer)
#define PERFTK_SANITIZED 1
#endif
#endif
#ifndef PERFTK_SANITIZED
#define PERFTK_SANITIZED 0
#endif

#endif  // PERFTK_BASE_SANITIZERS_H_
