// Opening a run's inputs: never blocking, never an output of the run.
#ifndef PERFTK_BASE_INPUT_FILE_H_
#define PERFTK_BASE_INPUT_FILE_H_

#include <sys/stat.h>

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace perftk::base {

enum class InputKind {
  kRegularFile,   // ELF files, jitdumps, debug files: random access
  kFileOrStream,  // a recording: a FIFO or socket streams too
};

// Opens `path` for reading. Its type is checked before it is opened
// (StatWithoutOpening), and the open itself never blocks (O_NONBLOCK), so a
// FIFO or device where a file belongs is an error, not a hang: anything
// but a regular file is refused with a message naming the path, the role
// ("jitdump", "ELF file") and what it is. With kFileOrStream a FIFO or
// socket is accepted and opened again for blocking reads, as a stream
// (a FIFO's open then waits for its writer, as `cat` does). An input that
// is a claimed output of the run is refused, and a regular file is noted as
// an input, so that a later output claim on it is refused too
// (file_roles.h). The caller owns
// the descriptor; `st` receives its stat when given.
absl::StatusOr<int> OpenInputFile(const std::string& path, absl::string_view role,
                                  InputKind kind = InputKind::kRegularFile,
                                  struct stat* st = nullptr);

// Stats `path` (following links) through an O_PATH descriptor, which
// reads nothing and so acts on no device or FIFO. Errors as OpenInputFile's:
// NotFound only for a file that is not there (ENOENT, ENOTDIR),
// PermissionDenied for EACCES and EPERM.
absl::Status StatWithoutOpening(const std::string& path, absl::string_view role, struct stat& st);

// Whether an open or stat failed for a reason of the system's (EACCES,
// EIO, EMFILE...), not because the file is not there (NotFound) or is not
// a file that will do (InvalidArgument).
bool IsSystemError(const absl::Status& status);

// "PATH: where WHAT belongs is a FIFO, not a regular file" (InvalidArgument),
// for a place the user set up (--symfs, a build-id cache) holding something
// else than a file.
absl::Status MisplacedFileError(const std::string& path, absl::string_view what, mode_t mode);

// "a FIFO", "a directory", "a character device"... for a file's mode.
const char* DescribeFileType(mode_t mode);

}  // namespace perftk::base

#endif  // PERFTK_BASE_INPUT_FILE_H_
