#include "elf/jit_elf_writer.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/printable.h"
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
  region.reserve(function.code.size() + function.eh_frame.size() + function.eh_frame_hdr.size() +
                 16);
  composer.AddCode(function, kFunctionAlign, region);
  if (function.has_unwinding)
    composer.AddUnwinding(function.eh_frame, function.eh_frame_hdr, region);
  std::vector<std::byte> tail;
  composer.Compose(out, tail);
  out.reserve(out.size() + region.size() + tail.size());
  base::AppendBytes(out, region);
  base::AppendBytes(out, tail);
  return composer.build_id();
}

absl::StatusOr<struct stat> WriteAndClose(base::GeneratedFile& file, base::Bytes bytes) {
  if (absl::Status s = file.Write(bytes); !s.ok()) return s;
  return file.Close();
}

absl::StatusOr<struct stat> WriteWholeFile(const std::string& path, base::Bytes bytes) {
  absl::StatusOr<base::GeneratedFile> file = base::GeneratedFile::Create(path);
  if (!file.ok()) return file.status();
  absl::StatusOr<struct stat> st = WriteAndClose(*file, bytes);
  if (st.ok()) file->TakePending().Keep();
  return st;
}

MergedJitElfWriter::MergedJitElfWriter(base::GeneratedFile file,
                                       std::unique_ptr<JitElfComposer> composer)
    : file_(std::move(file)),
      composer_(std::move(composer)),
      unwinding_(composer_->target().is_64, composer_->target().big_endian) {}

// The file, if not finished and kept, goes with file_.
MergedJitElfWriter::~MergedJitElfWriter() = default;

absl::StatusOr<std::unique_ptr<MergedJitElfWriter>> MergedJitElfWriter::Create(
    const std::string& path, const JitElfTarget& target) {
  absl::StatusOr<base::GeneratedFile> file = base::GeneratedFile::CreateStaged(path);
  if (!file.ok()) return file.status();
  // Room for the head, which Finish writes once the tail is known.
  std::vector<std::byte> head_room(target.text_offset());
  if (absl::Status s = file->Write(head_room); !s.ok()) return s;
  return std::unique_ptr<MergedJitElfWriter>(
      new MergedJitElfWriter(std::move(*file), std::make_unique<JitElfComposer>(target)));
}

size_t MergedJitElfWriter::functions() const { return composer_->functions(); }

const Sha1::Digest& MergedJitElfWriter::build_id() const { return composer_->build_id(); }

absl::Status MergedJitElfWriter::FlushRegion() {
  absl::Status s = file_.Write(region_);
  region_.clear();
  return s;
}

absl::StatusOr<uint64_t> MergedJitElfWriter::Add(const JitFunction& function) {
  if (function.has_unwinding) {
    uint64_t next = base::AlignUp(composer_->region_end(), kFunctionAlign);
    if (absl::Status s = unwinding_.Add(function.eh_frame, function.code.size(), next); !s.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("unwinding tables of ", base::Printable(function.name), ": ", s.message()));
    }
    has_unwinding_ = true;
  }
  uint64_t address = composer_->AddCode(function, kFunctionAlign, region_);
  if (region_.size() >= kRegionFlushSize) {
    if (absl::Status s = FlushRegion(); !s.ok()) return s;
  }
  return address;
}

absl::Status MergedJitElfWriter::AddMergedUnwinding() {
  std::vector<std::byte> eh_frame, eh_frame_hdr;
  if (absl::Status s =
          unwinding_.Write(base::AlignUp(composer_->region_end(), 8), eh_frame, eh_frame_hdr);
      !s.ok()) {
    return absl::OutOfRangeError(absl::StrCat(file_.path(), ": ", s.message()));
  }
  composer_->AddUnwinding(eh_frame, eh_frame_hdr, region_);
  return absl::OkStatus();
}

absl::StatusOr<struct stat> MergedJitElfWriter::Finish() {
  if (composer_->functions() == 0) {
    return absl::FailedPreconditionError(absl::StrCat(file_.path(), ": no functions to write"));
  }
  if (has_unwinding_) {
    if (absl::Status s = AddMergedUnwinding(); !s.ok()) return s;
  }
  if (absl::Status s = FlushRegion(); !s.ok()) return s;
  std::vector<std::byte> head, tail;
  composer_->Compose(head, tail);
  if (absl::Status s = file_.Write(tail); !s.ok()) return s;
  if (absl::Status s = file_.WriteAt(head, 0); !s.ok()) return s;
  if (absl::Status s = file_.Sync(); !s.ok()) return s;
  return file_.Close();
}

}  // namespace perftk::elf
