// Where `perftk aslr` puts each mapping of the original address spaces, and
// how an original address moves.
//
// One remapped space per process (user) and one per machine (kernel). Maps
// are placed in the order they appear, from a low base upward: right after
// the previous placement when the original map continued its original
// predecessor without a gap, one page further otherwise. A placement keeps
// the address's offset in its page, so every offset inside a mapping, and
// with it the address perf looks up in the dso (addr - start + pgoff), is
// unchanged.
//
// A file mapping is placed once per (dso, start - pgoff): every piece of one
// VMA split by the kernel, an mprotect or an overlapping mmap shares that
// invariant and so one translation. Memory without a file (anon, stack,
// kernel text, ksymbols) is placed by its original range.
//
// Addresses no mapping covers get a substitute in a reserved range above
// every placement: one distinct page per distinct original page, in order of
// first sight, keeping the offset in the page. So the same input always gives
// the same output, and distinct unknown addresses stay distinct.
#ifndef PERFTK_INJECT_REMAP_TABLE_H_
#define PERFTK_INJECT_REMAP_TABLE_H_

#include <cstdint>
#include <map>
#include <optional>

#include "absl/container/flat_hash_map.h"

namespace perftk {

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

  static constexpr uint64_t kUserBase = 0x200000;
  static constexpr uint64_t kKernelBase64 = 0xffff800010000000ULL;
  static constexpr uint64_t kKernelBase32 = 0x80000000ULL;
  // Substitutes for unknown addresses: above any realistic placement, below
  // the 47-bit user limit; and in the top of the kernel half.
  static constexpr uint64_t kUnknownUserBase = 0x7e0000000000ULL;
  static constexpr uint64_t kUnknownKernelBase = 0xfffffe0000000000ULL;
  static constexpr uint64_t kUnknownKernelBase32 = 0xf0000000ULL;

  explicit RemapTable(uint64_t page_size = 4096, bool kernel_is_64bit = true)
      : page_size_(page_size), kernel_is_64bit_(kernel_is_64bit) {}

  // A file mapping appeared at [start, start + len) with file offset pgoff.
  // Returns its remapped start (reusing the placement of an earlier piece
  // of the same file placement).
  uint64_t PlaceFile(const Space& space, const void* dso, uint64_t start, uint64_t len,
                     uint64_t pgoff, bool contiguous);
  // Memory without a file appeared at [start, start + len).
  uint64_t PlaceMemory(const Space& space, uint64_t start, uint64_t len, bool contiguous);

  // The remapped address of addr, which lies in a file mapping at
  // [start, ...) with pgoff, or in memory without a file; nullopt if that
  // mapping was never placed.
  std::optional<uint64_t> TranslateFile(const Space& space, const void* dso, uint64_t start,
                                        uint64_t pgoff, uint64_t addr) const;
  std::optional<uint64_t> TranslateMemory(const Space& space, uint64_t addr) const;

  // The substitute for an address no mapping covers. Addresses below 64 KiB
  // (never mappable; NULL-ish values) are kept as they are.
  uint64_t SubstituteUnknown(uint64_t addr, bool kernel_half);

  // A forked process starts with a copy of its parent's placements; an exec
  // starts from nothing; an exited process is forgotten.
  void Fork(const Space& parent, const Space& child);
  void Forget(const Space& space);

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
  struct SpaceState {
    uint64_t top = 0;  // end of the highest placement; 0 before the first
    absl::flat_hash_map<FileKey, uint64_t> files;  // key -> delta
    std::map<uint64_t, Range> memory;  // original start -> range, non-overlapping
  };

  // Chooses where a new placement of [start, start + len) goes.
  uint64_t Allocate(const Space& space, SpaceState& state, uint64_t start, uint64_t len,
                    bool contiguous);
  uint64_t BaseOf(const Space& space) const;

  uint64_t page_size_;
  bool kernel_is_64bit_;
  absl::flat_hash_map<Space, SpaceState> spaces_;
  absl::flat_hash_map<uint64_t, uint64_t> unknown_pages_;  // original page -> substitute page
  uint64_t next_unknown_user_ = kUnknownUserBase;
  uint64_t next_unknown_kernel_ = 0;
};

}  // namespace perftk

#endif  // PERFTK_INJECT_REMAP_TABLE_H_
