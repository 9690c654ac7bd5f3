// perf's build-id cache, the one place perftk knows its layout: where it
// is, where a binary is found in it, how a file is added to it, and where
// distributions keep separate debug files by build id.
//
// `perf record` (and `perf buildid-cache -a`, `perf archive`) keep a copy of
// each binary a recording names under the cache directory, found by its
// build id:
//
//   <dir>/<absolute path of the file>/<build id in hex>/elf
//       the file itself (for the vDSO `vdso`, also under [vdso]/<id>/vdso)
//   <dir>/.build-id/<first 2 hex digits>/<the others>
//       -> ../../<absolute path of the file>/<build id in hex>
//
// Older perf made the link point at the file itself.
#ifndef PERFTK_ELF_BUILD_ID_CACHE_H_
#define PERFTK_ELF_BUILD_ID_CACHE_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "base/build_id.h"
#include "base/pending_file.h"

namespace perftk::elf {

inline constexpr absl::string_view kVdsoName = "[vdso]";

// Where the cache is, the one rule for every subcommand: the directory
// SetBuildIdCacheDir was given (--buildid-dir), else $PERF_BUILDID_DIR,
// else buildid.dir from perf's configuration (base/perf_config.h), else
// $HOME/.debug, else "" (no HOME).
std::string BuildIdCacheDir();
// --buildid-dir DIR: the cache for the rest of the run ("" forgets it).
// Call before any thread starts.
void SetBuildIdCacheDir(std::string dir);

// <dir>/.build-id/<xx>/<the rest of hex>; "" when `hex` has fewer than 2
// digits.
std::string BuildIdLinkPath(absl::string_view dir, absl::string_view hex);

// <debug_root>/.build-id/<xx>/<the rest of hex>.debug: a separate debug
// file as distributions install them (debug_root: /usr/lib/debug); ""
// when `hex` has fewer than 3 digits.
std::string BuildIdDebugPath(absl::string_view debug_root, absl::string_view hex);

// Paths to try for a binary, best first; whether one exists, and holds a
// file with that id, is the caller's to check.

// The cache paths of the DSO named `name` (as the recording names it:
// a path, or [vdso]) whose build id is `hex` (lower-case hex); none when
// `cache_dir` or `hex` is empty or `hex` is shorter than two digits.
std::vector<std::string> BuildIdCachePaths(absl::string_view cache_dir, absl::string_view name,
                                           absl::string_view hex);

// The same for a recorded id, then, for a short id the recording padded
// with zeros, for the id without them: perf keeps a file under its own
// id's length.
std::vector<std::string> BuildIdCachePaths(absl::string_view cache_dir, absl::string_view name,
                                           const base::BuildId& id);

// Adds the file at `path` (absolute) with its build id to the cache in
// `dir`, as perf fills it: the file as a hard link (a copy on another file
// system), named by its real path, and the .build-id link. Entries that
// exist already are kept (the same build id means the same contents).
// What is created (folders, links, copies) is a pending file of the run,
// appended to `made` for the caller to keep once the run succeeds
// (base/pending_file.h); a copy is never seen half-written.
absl::Status AddToBuildIdCache(const std::string& dir, const std::string& path,
                               const base::BuildId& build_id, std::vector<base::PendingFile>& made);

}  // namespace perftk::elf

#endif  // PERFTK_ELF_BUILD_ID_CACHE_H_
