// Merges the .eh_frame tables of many JIT loads into one .eh_frame, with an
// .eh_frame_hdr that points at it (perftk jit --merge).
//
// A jitdump's UNWINDING_INFO carries the .eh_frame (and .eh_frame_hdr) of one
// load as they sit right after its code, at AlignUp(code_size, 8) from the
// code's first byte, which is where perf inject --jit and BuildJitElf put
// them. Add reads that table's CIEs and FDEs; Write lays them all out again
// for the code's new addresses: each CIE is copied as it is (a CIE per load),
// each FDE gets its CIE pointer and pc_begin re-encoded for its new place.
//
// The header has no binary-search table (fde_count and table encodings are
// DW_EH_PE_omit, as GNU ld writes when it makes none): readers then scan
// .eh_frame. A table would be read wrongly by perf's libunwind unwinder
// (perf 6.1 as Debian ships it): it reads the table through the process's
// memory at one address per file, the lowest start of the file's mappings
// minus the first PT_LOAD's p_vaddr plus .eh_frame_hdr's sh_addr, and keys it
// by that address; a merged file is mapped piecewise at unrelated addresses,
// so the table there is other bytes and unwinding stops. With no table perf
// falls back to frame pointers in the merged code, as for code whose own
// table is empty.
//
// What is read, and rejected otherwise: 32-bit lengths; CIE versions 1 and 3;
// augmentations "", "z" followed by any of 'R', 'L', 'S' (an LSDA only with
// the omit encoding: an LSDA lives in the JIT's memory, not in the table);
// FDE pointers pc-relative (DW_EH_PE_pcrel) in a fixed-size format. Each FDE
// must cover code of its own load. A rejected table leaves nothing behind.
#ifndef PERFTK_ELF_EH_FRAME_MERGE_H_
#define PERFTK_ELF_EH_FRAME_MERGE_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "base/bytes.h"

namespace perftk::elf {

// DW_EH_PE_* values the merged tables use.
inline constexpr uint8_t kEhPeUdata4 = 0x03;
inline constexpr uint8_t kEhPePcrelSdata4 = 0x1b;
inline constexpr uint8_t kEhPeOmit = 0xff;

class EhFrameMerger {
 public:
  EhFrameMerger(bool is_64, bool big_endian) : is_64_(is_64), big_endian_(big_endian) {}

  // Takes the CIEs and FDEs of `eh_frame`, the table of `code_size` bytes of
  // code, for that code now at `code_address`. InvalidArgument, naming the
  // offset in `eh_frame`, for a table it cannot rewrite (nothing is kept).
  absl::Status Add(base::Bytes eh_frame, uint64_t code_size, uint64_t code_address);

  size_t fde_count() const { return fdes_.size(); }
  // The size Write gives .eh_frame (a multiple of 4, with its terminator).
  uint64_t eh_frame_size() const { return eh_frame_size_; }

  // .eh_frame for `eh_frame_address` and .eh_frame_hdr (8 bytes) for the
  // address right after it; fails only when an FDE's pc_begin does not fit
  // its encoding.
  absl::Status Write(uint64_t eh_frame_address, std::vector<std::byte>& eh_frame,
                     std::vector<std::byte>& eh_frame_hdr) const;

 private:
  struct Cie {
    std::vector<std::byte> body;  // after the length and id, padded to 4
    uint8_t fde_encoding = 0;
    uint64_t offset = 0;  // in the merged .eh_frame
  };
  struct Fde {
    size_t cie = 0;                         // index in cies_
    uint64_t pc_begin = 0;                  // the new address
    std::vector<std::byte> after_pc_begin;  // pc_range on, padded to 4
    uint64_t offset = 0;                    // in the merged .eh_frame
  };

  bool is_64_;
  bool big_endian_;
  std::vector<Cie> cies_;
  std::vector<Fde> fdes_;
  uint64_t eh_frame_size_ = 4;  // the terminator
};

}  // namespace perftk::elf

#endif  // PERFTK_ELF_EH_FRAME_MERGE_H_
