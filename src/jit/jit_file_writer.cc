#include "jit/jit_file_writer.h"

#include <sys/resource.h>

#include <algorithm>
#include <utility>

#include "elf/jit_elf_writer.h"

namespace perftk::jit {

size_t JitFileWriter::AheadWithinFileLimit(size_t wanted) {
  struct rlimit limit;
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return wanted;
  return std::min<size_t>(wanted, limit.rlim_cur / 4);
}

JitFileWriter::JitFileWriter(size_t ahead, OnWritten on_written)
    : ahead_(ahead), on_written_(std::move(on_written)), creator_(/*threaded=*/ahead > 0) {}

absl::Status JitFileWriter::Add(std::string path, std::vector<std::byte> bytes,
                                const base::BuildId& build_id, uint64_t tag) {
  if (!failure_.ok()) return failure_;
  while (queued_paths_.contains(path)) {
    if (absl::Status s = WriteOldest(); !s.ok()) return s;
  }
  creator_.Request(path);
  ++queued_paths_[path];
  queued_bytes_ += bytes.size();
  queue_.push_back(Queued{std::move(path), std::move(bytes), build_id, tag});
  while (queue_.size() > ahead_ || (queued_bytes_ > kMaxQueuedBytes && !queue_.empty())) {
    if (absl::Status s = WriteOldest(); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status JitFileWriter::Flush() {
  if (!failure_.ok()) return failure_;
  while (!queue_.empty()) {
    if (absl::Status s = WriteOldest(); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status JitFileWriter::WriteOldest() {
  Queued file = std::move(queue_.front());
  queue_.pop_front();
  queued_bytes_ -= file.bytes.size();
  if (auto it = queued_paths_.find(file.path); --it->second == 0) queued_paths_.erase(it);
  absl::StatusOr<base::GeneratedFile> taken = creator_.Take();
  absl::StatusOr<struct stat> st =
      taken.ok() ? elf::WriteAndClose(*taken, file.bytes) : taken.status();
  if (!st.ok()) {
    failure_ = st.status();
    return failure_;
  }
  if (base::PendingFile pending = taken->TakePending(); pending.listed()) {
    written_.push_back(std::move(pending));
  }
  on_written_(file.path, file.build_id, *st, file.tag);
  return absl::OkStatus();
}

void JitFileWriter::KeepFiles() {
  for (base::PendingFile& file : written_) file.Keep();
  written_.clear();
}

}  // namespace perftk::jit
