// perf's build-id cache (the directory perf report searches by build id,
// ~/.debug by default), written the way perf fills it:
//
//   <dir>/<absolute path of the file>/<build id in hex>/elf
//       the file itself: a hard link, or a copy on another file system
//   <dir>/.build-id/<first 2 hex digits>/<other 38>
//       -> ../../<absolute path of the file>/<build id in hex>
//
// so that `perf report` finds a file by the build id the recording names
// even after the file itself is gone. Entries that exist already are kept
// (the same build id means the same contents). What is created (folders,
// links, copies) is a pending file of the run, handed to the caller to
// keep once the run succeeds (base/pending_file.h); a copy is never seen
// half-written.
#ifndef PERFTK_JIT_BUILDID_CACHE_H_
#define PERFTK_JIT_BUILDID_CACHE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/build_id.h"
#include "base/pending_file.h"

namespace perftk::jit {

// $HOME/.debug, perf's default; an error when HOME is not set.
absl::StatusOr<std::string> DefaultBuildIdCacheDir();

// Adds the file at `path` (absolute) with its build id to the cache in `dir`;
// appends what it creates to `made`.
absl::Status AddToBuildIdCache(const std::string& dir, const std::string& path,
                               const BuildId& build_id, std::vector<base::PendingFile>& made);

}  // namespace perftk::jit

#endif  // PERFTK_JIT_BUILDID_CACHE_H_
