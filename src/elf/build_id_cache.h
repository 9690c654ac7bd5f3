// Where perf's build-id cache keeps a binary, for readers of recordings.
//
// `perf record` (and `perf buildid-cache -a`, `perf archive`) keep a copy of
// each binary a recording names under the cache directory, found by its
// build id: .build-id/xx/yyyy (xx: the id's first byte in hex, yyyy: the
// rest) is a link to the copy's folder, which holds the file as `elf`, or
// for the vDSO as `vdso` (the vDSO also as [vdso]/<id>/vdso); older perf
// made the link point at the file itself.
//
// These give paths to try, best first; whether one exists, and holds a
// file with that id, is the caller's to check.
#ifndef PERFTK_ELF_BUILD_ID_CACHE_H_
#define PERFTK_ELF_BUILD_ID_CACHE_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "base/build_id.h"

namespace perftk::elf {

inline constexpr absl::string_view kVdsoName = "[vdso]";

// $PERF_BUILDID_DIR, else $HOME/.debug, else "" (no HOME).
std::string BuildIdCacheDir();

// The cache paths of the DSO named `name` (as the recording names it:
// a path, or [vdso]) whose build id is `hex` (lower-case hex); none when
// `cache_dir` or `hex` is empty or `hex` is shorter than two digits.
std::vector<std::string> BuildIdCachePaths(absl::string_view cache_dir, absl::string_view name,
                                           absl::string_view hex);

// The same for a recorded id, then, for a short id the recording padded
// with zeros, for the id without them: perf keeps a file under its own
// id's length.
std::vector<std::string> BuildIdCachePaths(absl::string_view cache_dir, absl::string_view name,
                                           const BuildId& id);

}  // namespace perftk::elf

#endif  // PERFTK_ELF_BUILD_ID_CACHE_H_
