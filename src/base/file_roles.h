// Which paths are this run's outputs, so that an output never lands on an
// input and no input is read from an output.
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
