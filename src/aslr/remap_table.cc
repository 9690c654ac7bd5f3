#include "aslr/remap_table.h"

namespace perftk::aslr {

uint64_t RemapTable::BaseOf(const Space& space) const {
  if (space.pid != kKernelPid) return kernel_is_64bit_ ? kUserBase : kUserBase32;
  return kernel_is_64bit_ ? kKernelBase64 : kKernelBase32;
}

const RemapTable::Arena* RemapTable::FindArena(const Space& space) const {
  auto it = arenas_.find(ArenaKey{space.machine, space.pid == kKernelPid});
  return it == arenas_.end() ? nullptr : &it->second;
}

uint64_t RemapTable::Allocate(const Space& space, Arena& arena, uint64_t start, uint64_t len,
                              bool contiguous) {
  const uint64_t in_page = start % page_size_;
  uint64_t page;
  if (arena.top == 0) {
    page = BaseOf(space);
  } else {
    page = (arena.top + page_size_ - 1) / page_size_ * page_size_;
    // Only a mapping that continues the one placed just before it can follow
    // it without a gap; anything else gets a one-page gap.
    if (!contiguous || arena.last_original_end != start) page += page_size_;
  }
  uint64_t placed = page + in_page;
  arena.top = std::max(arena.top, placed + len);
  arena.last_original_end = start + len;
  return placed;
}

uint64_t RemapTable::PlaceFile(const Space& space, const void* dso, uint64_t start, uint64_t len,
                               uint64_t pgoff, bool contiguous) {
  Arena& arena = ArenaOf(space);
  const FileKey key{dso, start - pgoff};
  if (auto it = arena.files.find(key); it != arena.files.end()) {
    uint64_t placed = start + it->second;
    arena.top = std::max(arena.top, placed + len);
    return placed;
  }
  uint64_t placed = Allocate(space, arena, start, len, contiguous);
  arena.files.emplace(key, placed - start);
  return placed;
}

uint64_t RemapTable::PlaceMemory(const Space& space, uint64_t start, uint64_t len,
                                 bool contiguous) {
  Arena& arena = ArenaOf(space);
  const uint64_t end = start + len;
  uint64_t delta;
  if (auto it = arena.memory.find({start, end}); it != arena.memory.end()) {
    delta = it->second;  // the same range placed before, here or in another process
  } else {
    delta = Allocate(space, arena, start, len, contiguous) - start;
    arena.memory.emplace(std::pair{start, end}, delta);
  }
  // Cut what the new range overlaps out of the space's older ranges, as the
  // kernel does with VMAs.
  std::map<uint64_t, Range>& ranges = memory_[space];
  auto it = ranges.lower_bound(start);
  if (it != ranges.begin()) {
    auto before = std::prev(it);
    if (before->second.end > start) {
      Range tail = before->second;
      before->second.end = start;
      if (tail.end > end) ranges.emplace(end, tail);
    }
  }
  while (it != ranges.end() && it->first < end) {
    Range range = it->second;
    it = ranges.erase(it);
    if (range.end > end) {
      ranges.emplace(end, range);
      break;
    }
  }
  ranges.emplace(start, Range{end, delta});
  return start + delta;
}

std::optional<uint64_t> RemapTable::TranslateFile(const Space& space, const void* dso,
                                                  uint64_t start, uint64_t pgoff,
                                                  uint64_t addr) const {
  const Arena* arena = FindArena(space);
  if (arena == nullptr) return std::nullopt;
  auto it = arena->files.find(FileKey{dso, start - pgoff});
  if (it == arena->files.end()) return std::nullopt;
  return addr + it->second;
}

std::optional<uint64_t> RemapTable::TranslateMemory(const Space& space, uint64_t addr) const {
  auto s = memory_.find(space);
  if (s == memory_.end()) return std::nullopt;
  const std::map<uint64_t, Range>& ranges = s->second;
  auto it = ranges.upper_bound(addr);
  if (it == ranges.begin()) return std::nullopt;
  --it;
  if (addr >= it->second.end) return std::nullopt;
  return addr + it->second.delta;
}

uint64_t RemapTable::SubstituteUnknown(uint64_t addr, bool kernel_half) {
  if (addr < 0x10000) return addr;
  const uint64_t page = addr / page_size_ * page_size_;
  auto [it, inserted] = unknown_pages_.try_emplace(page, 0);
  if (inserted) {
    uint64_t& next = kernel_half ? next_unknown_kernel_ : next_unknown_user_;
    if (next == 0) {
      next = kernel_half ? (kernel_is_64bit_ ? kUnknownKernelBase : kUnknownKernelBase32)
                         : (kernel_is_64bit_ ? kUnknownUserBase : kUnknownUserBase32);
    }
    it->second = next;
    next += page_size_;
  }
  return it->second + addr % page_size_;
}

void RemapTable::Fork(const Space& parent, const Space& child) {
  auto it = memory_.find(parent);
  if (it == memory_.end()) {
    memory_.erase(child);
    return;
  }
  std::map<uint64_t, Range> copy = it->second;
  memory_[child] = std::move(copy);
}

}  // namespace perftk::aslr
