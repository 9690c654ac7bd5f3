// Files a recording names: DSO paths, module names, jitdump paths, debug
// files, build-id cache entries. Whoever made the recording chose those
// names, so one rule holds for every file perftk opens because a
// recording named it:
//  - a name with a ".." component is refused, so that a file looked up
//    under a root (--symfs, /sys/module, a cache) stays under it;
//  - the file's type is checked before it is opened for reading (a FIFO
//    or device is never opened: opening some acts by itself);
//  - reads are capped in size;
//  - no bytes of such a file are quoted in a message.
#ifndef PERFTK_BASE_RECORDED_NAME_H_
#define PERFTK_BASE_RECORDED_NAME_H_

#include <cstddef>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace perftk::base {

// Whether `name` has a ".." component: "..", "../x", "/a/../b", "a/..".
bool HasDotDotComponent(absl::string_view name);

// `root` and the recorded `name` joined with one '/', or an
// InvalidArgument error (the name printed escaped) when `name` has a ".."
// component or, for a relative lookup under `root`, holds a '/' where
// `single_component` asks for a plain name (a module name, say).
absl::StatusOr<std::string> JoinRecordedName(absl::string_view root, absl::string_view name,
                                             bool single_component = false);

// The contents of the regular file at `path`, at most `limit` bytes. Its
// type is checked through an O_PATH descriptor before the file is opened:
// anything but a regular file is an InvalidArgument error naming `role`
// and what it is; a file over `limit` bytes is an error, not a partial
// read; a missing file is NotFound. The file's bytes never appear in an
// error.
absl::StatusOr<std::string> ReadSmallRegularFile(const std::string& path, absl::string_view role,
                                                 size_t limit);

}  // namespace perftk::base

#endif  // PERFTK_BASE_RECORDED_NAME_H_
