// The permission bits of the files perftk creates.
//
// A recording may be private: `perf record` writes 0600. What perftk makes
// of it (the rewritten recording, jit's ELF files, build-id cache entries,
// a profile or listing written to a file) is no more readable than the
// recording it came from. Each recording a run opens narrows the mode its
// files are created with to the recording's read and write bits; the umask
// applies as usual. A run that opened no recording creates files 0666 less
// the umask, as any tool does.
//
// Process-wide and thread-safe.
#ifndef PERFTK_BASE_CREATION_MODE_H_
#define PERFTK_BASE_CREATION_MODE_H_

#include <sys/types.h>

namespace perftk::base {

// Narrows the creation mode to the read and write bits of `recording_mode`
// (a stat's st_mode); it never widens again.
void LimitCreationModeTo(mode_t recording_mode);

// The mode for open(2) of a new file: 0666 narrowed by the recordings so far.
mode_t FileCreationMode();
// `mode`'s permission bits (07777) without the read and write bits the
// recordings so far do not have: for a file that already exists.
mode_t NarrowedMode(mode_t mode);
// The mode for mkdir(2): FileCreationMode() with search (x) where read is
// allowed (0666 -> 0777, 0600 -> 0700).
mode_t DirectoryCreationMode();

}  // namespace perftk::base

#endif  // PERFTK_BASE_CREATION_MODE_H_
