// Writes the ELF files that stand in for JIT-generated code, in the layout
// `perf inject --jit` uses, so that perf report/script/annotate and addr2line
// symbolize samples in them:
//
//   [ELF header][one PT_LOAD header] pad | .text at text_offset() (0x80 on
//   64-bit, 0x60 on 32-bit), file offset == virtual address
//   [.eh_frame .eh_frame_hdr] at ALIGN_8 after the code (when given)
//   .note.gnu.build-id, .symtab (one STT_FUNC per function), .strtab,
//   [.debug_line .debug_info .debug_abbrev] (when lines are given),
//   .shstrtab, section headers
//
// ET_DYN for the target's machine, class and byte order. The PT_LOAD covers
// the code and the unwinding tables (R+X). The DWARF 4 line table has one
// sequence per function; .debug_info has one compile unit with low/high pc
// and a subprogram per function, so GNU and LLVM tools both find lines.
//
// The build id is SHA-1 over every byte of the file except the build-id note
// itself (code, unwinding tables, symbols, names, line tables): the same
// input gives the same id, on every run.
//
// BuildJitElf makes one file's bytes in memory (written with one write);
// MergedJitElfWriter streams any number of functions into one file with
// bounded memory (the code is not kept). Both lay the file out with
// JitElfComposer (jit_elf_composer.h); their files are base::GeneratedFile.
#ifndef PERFTK_ELF_JIT_ELF_WRITER_H_
#define PERFTK_ELF_JIT_ELF_WRITER_H_

#include <sys/stat.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "base/bytes.h"
#include "base/generated_file.h"
#include "base/pending_file.h"
#include "elf/eh_frame_merge.h"
#include "elf/jit_code.h"
#include "elf/sha1.h"

namespace perftk::elf {

class JitElfComposer;  // jit_elf_composer.h

// The whole file for one function, replacing `out`'s contents; returns its
// build id.
Sha1::Digest BuildJitElf(const JitElfTarget& target, const JitFunction& function,
                         std::vector<std::byte>& out);

// Writes `bytes` to `file` with one write and closes it; returns the
// file's stat (for the device and inode numbers an MMAP2 carries). On
// failure the unfinished file is removed when `file` goes.
absl::StatusOr<struct stat> WriteAndClose(base::GeneratedFile& file, base::Bytes bytes);
// base::GeneratedFile::Create + WriteAndClose; the file is kept.
absl::StatusOr<struct stat> WriteWholeFile(const std::string& path, base::Bytes bytes);

// One ELF for many functions (perftk jit --merge): each function's code at
// its own 16-aligned offset in .text, one symbol each. The unwinding tables
// of the functions that come with them (JitFunction::eh_frame, laid out for
// the code as BuildJitElf places them) are merged into one .eh_frame and one
// .eh_frame_hdr after the code (see eh_frame_merge.h); once any function came
// with unwinding info, even empty, the file has both sections, and says "no
// tables here" for the code without FDEs, as a JIT does. The file appears at
// `path` only when Finish succeeds (base::GeneratedFile::CreateStaged: it is
// written beside `path`, flushed to the disk and renamed), and is a pending
// file of the run (base/pending_file.h) when it is new.
class MergedJitElfWriter {
 public:
  static absl::StatusOr<std::unique_ptr<MergedJitElfWriter>> Create(const std::string& path,
                                                                    const JitElfTarget& target);
  ~MergedJitElfWriter();

  // Appends a function; returns the file offset (== address) of its code.
  // InvalidArgument when its unwinding tables cannot be merged: nothing of
  // the function is added then.
  absl::StatusOr<uint64_t> Add(const JitFunction& function);
  absl::StatusOr<struct stat> Finish();
  // After Finish: the file's pending entry (see base::GeneratedFile).
  base::PendingFile TakePending() { return file_.TakePending(); }

  size_t functions() const;
  // The file's build id, once Finish has succeeded.
  const Sha1::Digest& build_id() const;

 private:
  MergedJitElfWriter(base::GeneratedFile file, std::unique_ptr<JitElfComposer> composer);
  absl::Status FlushRegion();
  // Merges the tables Add took into .eh_frame and .eh_frame_hdr after the code.
  absl::Status AddMergedUnwinding();

  base::GeneratedFile file_;
  std::unique_ptr<JitElfComposer> composer_;
  std::vector<std::byte> region_;
  EhFrameMerger unwinding_;
  bool has_unwinding_ = false;
};

}  // namespace perftk::elf

#endif  // PERFTK_ELF_JIT_ELF_WRITER_H_
