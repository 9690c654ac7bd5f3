// JitFileWriter: writes perftk jit's per-function ELF files in the order
// they are given, creating them ahead on a thread of their own
// (FileCreator) when `ahead` > 0, so that their creation, most of the cost,
// overlaps with everything else.
//
// Add() queues a file: its path goes to the creator at once, its bytes
// wait. When more than `ahead` files (or more than kMaxQueuedBytes) wait, the
// oldest is written: its file taken, one write, fstat, close
// (elf::WriteAndClose). A path added while an earlier file of that path
// still waits first has the earlier one written, so the later content wins
// as when files are written one at a time. Flush() writes all that wait.
// Every file written is reported, in the order added, to `on_written` with
// its stat. With `ahead` 0, Add() creates and writes its file at once:
// elf::WriteWholeFile.
//
// The first failure (a file's creation, write, fstat or close; that file is
// removed) is returned by the Add or Flush that met it, and by every call
// after it: the writer is spent. Files created but not written are removed
// when the writer is destroyed, and so are the files written that were new,
// unless KeepFiles() was called (the run succeeded): they are pending files
// of the run (base/pending_file.h).
#ifndef PERFTK_JIT_JIT_FILE_WRITER_H_
#define PERFTK_JIT_JIT_FILE_WRITER_H_

#include <sys/stat.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "base/build_id.h"
#include "jit/file_creator.h"

namespace perftk::jit {

class JitFileWriter {
 public:
  // Bytes of queued files beyond which the oldest is written at once.
  static constexpr size_t kMaxQueuedBytes = size_t{32} << 20;

  // `tag` is the caller's, given back with the file.
  using OnWritten = std::function<void(const std::string& path, const base::BuildId& build_id,
                                       const struct stat& st, uint64_t tag)>;

  // How far ahead to create files by default: `wanted`, lowered so that the
  // descriptors held open stay within a quarter of RLIMIT_NOFILE.
  static size_t AheadWithinFileLimit(size_t wanted);

  JitFileWriter(size_t ahead, OnWritten on_written);

  absl::Status Add(std::string path, std::vector<std::byte> bytes, const base::BuildId& build_id,
                   uint64_t tag);
  absl::Status Flush();
  // Keeps every file written so far (the run that wrote them succeeded).
  void KeepFiles();

 private:
  struct Queued {
    std::string path;
    std::vector<std::byte> bytes;
    base::BuildId build_id;
    uint64_t tag;
  };

  absl::Status WriteOldest();

  const size_t ahead_;
  OnWritten on_written_;
  FileCreator creator_;
  std::vector<base::PendingFile> written_;  // new files written, not kept yet
  std::deque<Queued> queue_;
  absl::flat_hash_map<std::string, size_t> queued_paths_;  // path -> files queued
  size_t queued_bytes_ = 0;
  absl::Status failure_;
};

}  // namespace perftk::jit

#endif  // PERFTK_JIT_JIT_FILE_WRITER_H_
