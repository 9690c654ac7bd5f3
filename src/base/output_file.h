// OutputFile: where a run's output goes, under one policy for every
// subcommand.
//
//  - "-" is standard output, written in order.
//  - An existing character device or FIFO is opened and written in place,
//    in order: `-o /dev/null` stays a device, `-o FIFO` streams. A socket
//    file, which open(2) cannot open, is refused with what to do instead.
//  - Anything else (a regular file, or a path that does not exist yet) is
//    written to PATH.tmp.<pid> beside it (beside the file a chain of
//    symbolic links ends at, which a dangling link makes; a loop is
//    refused), a pending file (pending_file.h): Commit makes it durable and
//    renames it over PATH in one step; a run that fails or is interrupted
//    removes it. PATH is therefore either as it was or complete. A file
//    that existed keeps its permission bits.
//
// The path is claimed as an output (file_roles.h) while the OutputFile
// lives: Open refuses a file the run has read already, and Commit refuses
// when an input opened since turned out to be it.
// Errors name the path the user gave, never the temporary file, and the
// system's reason; a reader that closed its end of a pipe is named so.
#ifndef PERFTK_BASE_OUTPUT_FILE_H_
#define PERFTK_BASE_OUTPUT_FILE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "base/file_roles.h"
#include "base/pending_file.h"

namespace perftk::base {

class OutputFile {
 public:
  // `role` names the output in messages and conflicts: "output (-o)".
  static absl::StatusOr<std::unique_ptr<OutputFile>> Open(const std::string& path,
                                                          absl::string_view role = "output");
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  const std::string& path() const { return path_; }
  // Standard output, a device or a FIFO: written in order only.
  bool is_stream() const { return stream_; }

  absl::Status Write(std::span<const std::byte> bytes);
  absl::Status Write(absl::string_view text);
  // Only when !is_stream().
  absl::Status WriteAt(std::span<const std::byte> bytes, uint64_t offset);

  // Puts the output in place (see above); for a stream, checks that what
  // was written went out. Nothing may be written after.
  absl::Status Commit();

 private:
  OutputFile(std::string path, absl::string_view role);
  absl::Status Error(absl::string_view what, int error) const;

  std::string path_;    // as the user gave it
  std::string target_;  // what Commit renames over (a link's target)
  OutputClaim claim_;
  PendingFile pending_;  // the temporary file, for a regular output
  int fd_ = -1;
  bool owns_fd_ = false;
  bool stream_ = true;
  bool committed_ = false;
  uint64_t written_ = 0;
  uint64_t written_back_ = 0;
};

// Writes `text` to standard output (after what stdio holds for it); a
// failed write, a full disk or a closed pipe is an error with its reason.
absl::Status WriteToStandardOutput(absl::string_view text);

}  // namespace perftk::base

#endif  // PERFTK_BASE_OUTPUT_FILE_H_
