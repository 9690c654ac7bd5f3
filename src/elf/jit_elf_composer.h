// JitElfComposer: lays out one ELF file for JIT code (the layout is in
// jit_elf_writer.h). The caller owns the loaded region, the bytes from
// text_offset() on: AddCode and AddUnwinding append to it (the caller may
// write out and clear its buffer between calls), and Compose makes the
// bytes before it (ELF header, program header, padding up to
// text_offset()) and after it (build-id note, symbols, names, DWARF line
// tables, section names, section headers).
//
// Invariants: the region starts at text_offset() and file offset ==
// virtual address throughout it; each function's code starts at a multiple
// of the alignment given; unwinding tables, once added, end the region.
// The composer keeps what the tail needs (symbols, names, line rows) and
// the SHA-1 of every region byte, never the code itself. The build id
// covers the region and the tail's sections except the note; it is known
// after Compose, which is called once.
#ifndef PERFTK_ELF_JIT_ELF_COMPOSER_H_
#define PERFTK_ELF_JIT_ELF_COMPOSER_H_

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "base/bytes.h"
#include "elf/jit_code.h"
#include "elf/jit_dwarf.h"
#include "elf/sha1.h"

namespace perftk::elf {

class JitElfComposer {
 public:
  // Where each function's code starts, and the PT_LOAD's alignment.
  static constexpr uint64_t kFunctionAlign = 16;

  explicit JitElfComposer(const JitElfTarget& target);

  size_t functions() const { return symbols_.size(); }
  // The file offset just past the region.
  uint64_t region_end() const { return region_end_; }
  const Sha1::Digest& build_id() const { return build_id_; }
  const JitElfTarget& target() const { return target_; }

  // Appends the function's code to `region` (after alignment padding) and
  // returns its address.
  uint64_t AddCode(const JitFunction& function, uint64_t alignment, std::vector<std::byte>& region);
  // Places .eh_frame then .eh_frame_hdr at the next 8-byte boundary.
  void AddUnwinding(base::Bytes eh_frame, base::Bytes eh_frame_hdr, std::vector<std::byte>& region);
  // The bytes before the region (ELF header, program header, padding) and
  // after it (other sections, section headers).
  void Compose(std::vector<std::byte>& head, std::vector<std::byte>& tail);

 private:
  struct Symbol {
    uint32_t name;  // in strtab_
    uint64_t value;
    uint64_t size;
  };
  struct Range {
    uint64_t start = 0;
    uint64_t size = 0;
  };

  // Appends `zeros` zero bytes then `bytes` to the region, hashing them.
  void AppendRegion(std::vector<std::byte>& region, base::Bytes bytes, uint64_t zeros);
  // The file's number in the line program (from 1), listing it if new.
  uint32_t FileIndex(absl::string_view file);
  void AddLines(const JitFunction& function, uint64_t address);
  std::vector<std::byte> SymbolTable() const;
  // What the DWARF sections describe (jit_dwarf.h); only with lines.
  DwarfUnit DebugUnit() const;
  // Hashes the tail's `sections` after the region: the build id.
  void FinishBuildId(std::initializer_list<base::Bytes> sections);

  JitElfTarget target_;
  uint64_t region_end_;
  uint64_t text_start_ = 0;
  uint64_t text_end_ = 0;
  bool has_unwinding_ = false;
  Range eh_frame_, eh_frame_hdr_;
  std::vector<Symbol> symbols_;
  std::vector<std::byte> strtab_;
  std::vector<DwarfSequence> lines_;
  std::vector<size_t> line_functions_;
  std::vector<std::string> files_;
  absl::flat_hash_map<std::string, uint32_t> file_index_;
  Sha1 hash_;
  Sha1::Digest build_id_{};
};

}  // namespace perftk::elf

#endif  // PERFTK_ELF_JIT_ELF_COMPOSER_H_
