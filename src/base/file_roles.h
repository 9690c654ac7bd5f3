// Which paths are this run's outputs and which files its inputs, so that an
// output never lands on an input, whichever of the two is opened first.
//
// An OutputClaim names a path as an output for as long as it lives
// (OutputFile holds one; a tool that must check its inputs before its
// output is open holds one of its own). Every input opened through
// OpenInputFile, and every file a run generates, is checked against the
// live claims: the same file (device and inode), or the same path once
// resolved (for an output that does not exist yet), is a conflict. A
// conflict is an error naming both roles, and it sticks to the claims it
// hit: OutputFile::Commit refuses while its claim has one, so a caller that
// turned the error into a warning still cannot replace the input.
//
// The other way round, while a RunScope lives (a command line's run: main
// holds one), every regular file opened as an input is noted, and a claim
// made later on one of them starts with its conflict: an @LIST read before
// -o was opened, a --kcore checked up front, are as safe as inputs opened
// after it. (Without a scope, as in unit tests that write a file, read it
// back and write it again, nothing is noted.)
//
// Process-wide and thread-safe.
#ifndef PERFTK_BASE_FILE_ROLES_H_
#define PERFTK_BASE_FILE_ROLES_H_

#include <sys/stat.h>

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace perftk::base {

class OutputClaim {
 public:
  OutputClaim() = default;
  // Claims `path` in `role` ("output (-o)"); "-" and "" claim nothing.
  OutputClaim(const std::string& path, absl::string_view role);
  OutputClaim(OutputClaim&& other) noexcept;
  OutputClaim& operator=(OutputClaim&& other) noexcept;
  OutputClaim(const OutputClaim&) = delete;
  OutputClaim& operator=(const OutputClaim&) = delete;
  ~OutputClaim();

  // The first conflict an input or generated file had with this claim.
  absl::Status conflict() const;

 private:
  void Release();
  uint64_t id_ = 0;  // 0: claims nothing
};

// Error when `path` in `role` ("jitdump", "binary") is a claimed output.
// `st` is the file's stat when it is open already (nullptr: stat'ed here
// if it exists).
absl::Status CheckNotAnOutput(const std::string& path, const struct stat* st,
                              absl::string_view role);

// One run's inputs are noted from its construction to its destruction.
class RunScope {
 public:
  RunScope();
  ~RunScope();
  RunScope(const RunScope&) = delete;
  RunScope& operator=(const RunScope&) = delete;
};

// Within a RunScope, notes the regular file `st` (opened as `path` in
// `role`) as an input of the run: a later claim on it has a conflict from
// the start.
void NoteInput(const std::string& path, const struct stat& st, absl::string_view role);

// The names of the claimed outputs in `resolved_folder` (ResolvedFolder's
// form): a writer of many files in one folder checks each name against
// these and calls CheckNotAnOutput only on a match.
std::vector<std::string> ClaimedNamesIn(const std::string& resolved_folder);

// `folder` made absolute with symbolic links and ".." resolved (only made
// absolute when it does not exist).
std::string ResolvedFolder(const std::string& folder);
// `path` with its folder resolved so; the last component is kept as given.
// (Unlike elf::AbsolutePath, which keeps the links a user named.)
std::string ResolvedPath(const std::string& path);

}  // namespace perftk::base

#endif  // PERFTK_BASE_FILE_ROLES_H_
