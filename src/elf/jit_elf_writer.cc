#include "elf/jit_elf_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/write_all.h"
#include "elf/jit_elf_composer.h"
#include "elf/sha1.h"

namespace perftk::elf {
namespace {

constexpr uint64_t kFunctionAlign = JitElfComposer::kFunctionAlign;
constexpr size_t kRegionFlushSize = 1 << 20;

}  // namespace

Sha1::Digest BuildJitElf(const JitElfTarget& target, const JitFunction& function,
                         std::vector<std::byte>& out) {
  JitElfComposer composer(target);
  std::vector<std::byte> region;
  region.reserve(function.code.size() + function.eh_frame.size() +
                 function.eh_frame_hdr.size() + 16);
  composer.AddCode(function, kFunctionAlign, region);
  if (function.has_unwinding) composer.AddUnwinding(function.eh_frame, function.eh_frame_hdr, region);
  std::vector<std::byte> tail;
  composer.Compose(out, tail);
  out.reserve(out.size() + region.size() + tail.size());
  AppendBytes(out, region);
  AppendBytes(out, tail);
  return composer.build_id();
}

namespace {

absl::Status WriteAll(int fd, Bytes bytes, const std::string& path) {
  if (int error = base::WriteAll(fd, bytes); error != 0) {
    return absl::InternalError(absl::StrCat(path, ": write failed: ", std::strerror(error)));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<struct stat> WriteAndClose(base::GeneratedFile& file, Bytes bytes) {
  if (absl::Status s = file.Write(bytes); !s.ok()) return s;
  return file.Close();
}

absl::StatusOr<struct stat> WriteWholeFile(const std::string& path, Bytes bytes) {
  absl::StatusOr<base::GeneratedFile> file = base::GeneratedFile::Create(path);
  if (!file.ok()) return file.status();
  absl::StatusOr<struct stat> st = WriteAndClose(*file, bytes);
  if (st.ok()) file->TakePending().Keep();
  return st;
}

MergedJitElfWriter::MergedJitElfWriter(std::string path, std::string temp_path, int fd,
                                       base::PendingFile pending,
                                       std::unique_ptr<JitElfComposer> composer)
    : path_(std::move(path)), temp_path_(std::move(temp_path)), fd_(fd),
      pending_(std::move(pending)), composer_(std::move(composer)),
      unwinding_(composer_->target().is_64, composer_->target().big_endian) {}

MergedJitElfWriter::~MergedJitElfWriter() {
  if (fd_ >= 0) close(fd_);
  // pending_, if still listed, removes the unfinished or unkept file.
}

absl::StatusOr<std::unique_ptr<MergedJitElfWriter>> MergedJitElfWriter::Create(
    const std::string& path, const JitElfTarget& target) {
  std::string temp_path = absl::StrCat(path, ".tmp.", getpid());
  int fd = -1;
  absl::StatusOr<base::PendingFile> pending = base::PendingFile::CreateNew(temp_path, &fd);
  if (!pending.ok()) return pending.status();
  if (lseek(fd, static_cast<off_t>(target.text_offset()), SEEK_SET) < 0) {
    close(fd);
    return absl::InternalError(absl::StrCat(temp_path, ": seek failed: ", std::strerror(errno)));
  }
  return std::unique_ptr<MergedJitElfWriter>(
      new MergedJitElfWriter(path, std::move(temp_path), fd, std::move(*pending),
                             std::make_unique<JitElfComposer>(target)));
}

size_t MergedJitElfWriter::functions() const { return composer_->functions(); }

const Sha1::Digest& MergedJitElfWriter::build_id() const { return composer_->build_id(); }

absl::Status MergedJitElfWriter::FlushRegion() {
  absl::Status s = WriteAll(fd_, region_, temp_path_);
  region_.clear();
  return s;
}

absl::StatusOr<uint64_t> MergedJitElfWriter::Add(const JitFunction& function) {
  if (function.has_unwinding) {
    uint64_t next = AlignUp(composer_->region_end(), kFunctionAlign);
    if (absl::Status s = unwinding_.Add(function.eh_frame, function.code.size(), next); !s.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("unwinding tables of ", function.name, ": ", s.message()));
    }
    has_unwinding_ = true;
  }
  uint64_t address = composer_->AddCode(function, kFunctionAlign, region_);
  if (region_.size() >= kRegionFlushSize) {
    if (absl::Status s = FlushRegion(); !s.ok()) return s;
  }
  return address;
}

absl::StatusOr<struct stat> MergedJitElfWriter::Finish() {
  if (composer_->functions() == 0) {
    return absl::FailedPreconditionError(absl::StrCat(path_, ": no functions to write"));
  }
  if (has_unwinding_) {
    std::vector<std::byte> eh_frame, eh_frame_hdr;
    if (absl::Status s = unwinding_.Write(AlignUp(composer_->region_end(), 8), eh_frame,
                                          eh_frame_hdr);
        !s.ok()) {
      return absl::OutOfRangeError(absl::StrCat(path_, ": ", s.message()));
    }
    composer_->AddUnwinding(eh_frame, eh_frame_hdr, region_);
  }
  if (absl::Status s = FlushRegion(); !s.ok()) return s;
  std::vector<std::byte> head, tail;
  composer_->Compose(head, tail);
  if (absl::Status s = WriteAll(fd_, tail, temp_path_); !s.ok()) return s;
  if (pwrite(fd_, head.data(), head.size(), 0) != static_cast<ssize_t>(head.size())) {
    return absl::InternalError(absl::StrCat(temp_path_, ": write failed: ", std::strerror(errno)));
  }
  struct stat st;
  if (fsync(fd_) != 0 || fstat(fd_, &st) != 0) {
    return absl::InternalError(absl::StrCat(temp_path_, ": sync failed: ", std::strerror(errno)));
  }
  int fd = fd_;
  fd_ = -1;
  if (close(fd) != 0) {
    return absl::InternalError(absl::StrCat(temp_path_, ": close failed: ", std::strerror(errno)));
  }
  if (absl::Status s = pending_.RenameOver(path_); !s.ok()) return s;
  return st;
}

}  // namespace perftk::elf
