// Where `perftk aslr` puts each mapping of the original address spaces, and
// how an original address moves. 64-bit or 32-bit bases follow the recorded
// kernel's word size.
//
// Placements come from one arena per machine and side (user, kernel), from
// a fixed base upward, in the order mappings appear: right after the
// previous placement when the mapping continues the one placed before it in
// the original, one page further otherwise. So no two placements overlap,
// whatever process they belong to, and a placement keeps the address's
// offset in its page: every offset inside a mapping, and with it the address
// perf looks up in the dso (addr - start + pgoff), is unchanged.
//
// The same object at the same original place gets the same remapped place
// in every process that maps it (a non-PIE program, a forked child's
// inherited memory), so addresses that were equal across processes stay
// equal, and addresses that differed stay different. A file mapping is
// identified by (dso, start - pgoff): every piece of one VMA split by the
// kernel, an mprotect or an overlapping mmap shares that invariant. Memory
// without a file (anon, stack, kernel text, ksymbols) is identified by its
// original range, and each process keeps its own ranges for translation.
//
// Addresses no mapping covers get a substitute in a reserved range above
// every placement: one distinct page per distinct original page, in order of
// first sight, keeping the offset in the page. So the same input always gives
// the same output, and distinct unknown addresses stay distinct.
#ifndef PERFTK_ASLR_REMAP_TABLE_H_
#define PERFTK_ASLR_REMAP_TABLE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <utility>

#include "absl/container/flat_hash_map.h"

namespace perftk::aslr {

class RemapTable {
 public:
  // An address space: a machine (any stable identity) and a pid, or
  // kKernelPid for the machine's kernel.
  struct Space {
    const void* machine = nullptr;
    int32_t pid = 0;
    friend bool operator==(const Space&, const Space&) = default;
    template <typename H>
    friend H AbslHashValue(H h, const Space& s) {
      return H::combine(std::move(h), s.machine, s.pid);
    }
  };
  static constexpr int32_t kKernelPid = -1;

  // Bases of the remapped spaces. They sit where no real mapping of a
  // recorded machine is (between a 64-bit process's brk heap and its PIE
  // and mmap areas; in x86-64's kernel guard hole), so that a remapped
  // address can never be mistaken for, or collide with, an original one.
  static constexpr uint64_t kUserBase = 0x100000000000ULL;
  static constexpr uint64_t kUserBase32 = 0x20000000ULL;
  static constexpr uint64_t kKernelBase64 = 0xffff800010000000ULL;
  static constexpr uint64_t kKernelBase32 = 0x80000000ULL;
  // Substitutes for unknown addresses, above any realistic placement.
  static constexpr uint64_t kUnknownUserBase = 0x300000000000ULL;
  static constexpr uint64_t kUnknownUserBase32 = 0x70000000ULL;
  static constexpr uint64_t kUnknownKernelBase = 0xffff840000000000ULL;
  static constexpr uint64_t kUnknownKernelBase32 = 0xf0000000ULL;

  explicit RemapTable(uint64_t page_size = 4096, bool kernel_is_64bit = true)
      : page_size_(page_size), kernel_is_64bit_(kernel_is_64bit) {}

  uint64_t page_size() const { return page_size_; }

  // A file mapping appeared at [start, start + len) with file offset pgoff.
  // Returns its remapped start (reusing the placement of an earlier piece
  // of the same file placement). `contiguous`: the original mapping right
  // before it ends at `start`.
  uint64_t PlaceFile(const Space& space, const void* dso, uint64_t start, uint64_t len,
                     uint64_t pgoff, bool contiguous);
  // Memory without a file appeared at [start, start + len) in `space`.
  uint64_t PlaceMemory(const Space& space, uint64_t start, uint64_t len, bool contiguous);

  // The remapped address of addr, which lies in a file mapping at
  // [start, ...) with pgoff, or in memory without a file of `space`;
  // nullopt if that mapping was never placed.
  std::optional<uint64_t> TranslateFile(const Space& space, const void* dso, uint64_t start,
                                        uint64_t pgoff, uint64_t addr) const;
  std::optional<uint64_t> TranslateMemory(const Space& space, uint64_t addr) const;

  // The substitute for an address no mapping covers. Addresses below 64 KiB
  // (never mappable; NULL-ish values) are kept as they are.
  uint64_t SubstituteUnknown(uint64_t addr, bool kernel_half);

  // A forked process starts with a copy of its parent's memory ranges.
  // (Exited processes keep theirs: samples taken while exiting follow EXIT.)
  void Fork(const Space& parent, const Space& child);

  size_t unknown_pages() const { return unknown_pages_.size(); }

 private:
  struct FileKey {
    const void* dso;
    uint64_t invariant;  // start - pgoff
    friend bool operator==(const FileKey&, const FileKey&) = default;
    template <typename H>
    friend H AbslHashValue(H h, const FileKey& k) {
      return H::combine(std::move(h), k.dso, k.invariant);
    }
  };
  struct Range {
    uint64_t end;
    uint64_t delta;  // remapped - original, modulo 2^64
  };
  // Where one machine's user or kernel placements come from.
  struct Arena {
    uint64_t top = 0;                // end of the highest placement; 0 before the first
    uint64_t last_original_end = 0;  // original end of the latest new placement
    absl::flat_hash_map<FileKey, uint64_t> files;                         // -> delta
    absl::flat_hash_map<std::pair<uint64_t, uint64_t>, uint64_t> memory;  // range -> delta
  };
  using ArenaKey = std::pair<const void*, bool>;  // machine, kernel side

  Arena& ArenaOf(const Space& space) {
    return arenas_[ArenaKey{space.machine, space.pid == kKernelPid}];
  }
  const Arena* FindArena(const Space& space) const;
  // Chooses where a new placement of [start, start + len) goes.
  uint64_t Allocate(const Space& space, Arena& arena, uint64_t start, uint64_t len,
                    bool contiguous);
  uint64_t BaseOf(const Space& space) const;

  uint64_t page_size_;
  bool kernel_is_64bit_;
  absl::flat_hash_map<ArenaKey, Arena> arenas_;
  // Each space's memory ranges by original start; non-overlapping.
  absl::flat_hash_map<Space, std::map<uint64_t, Range>> memory_;
  absl::flat_hash_map<uint64_t, uint64_t> unknown_pages_;  // original page -> substitute page
  uint64_t next_unknown_user_ = 0;
  uint64_t next_unknown_kernel_ = 0;
};

}  // namespace perftk::aslr

#endif  // PERFTK_ASLR_REMAP_TABLE_H_
