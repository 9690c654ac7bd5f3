#include "inject/remap_table.h"

namespace perftk {

uint64_t RemapTable::BaseOf(const Space& space) const {
  if (space.pid != kKernelPid) return kUserBase;
  return kernel_is_64bit_ ? kKernelBase64 : kKernelBase32;
}

uint64_t RemapTable::Allocate(const Space& space, SpaceState& state, uint64_t start, uint64_t len,
                              bool contiguous) {
  const uint64_t in_page = start % page_size_;
  uint64_t page;
  if (state.top == 0) {
    page = BaseOf(space);
  } else {
    page = (state.top + page_size_ - 1) / page_size_ * page_size_;
    if (!contiguous) page += page_size_;
  }
  uint64_t placed = page + in_page;
  state.top = std::max(state.top, placed + len);
  return placed;
}

uint64_t RemapTable::PlaceFile(const Space& space, const void* dso, uint64_t start, uint64_t len,
                               uint64_t pgoff, bool contiguous) {
  SpaceState& state = spaces_[space];
  const FileKey key{dso, start - pgoff};
  if (auto it = state.files.find(key); it != state.files.end()) {
    uint64_t placed = start + it->second;
    state.top = std::max(state.top, placed + len);
    return placed;
  }
  uint64_t placed = Allocate(space, state, start, len, contiguous);
  state.files.emplace(key, placed - start);
  return placed;
}

uint64_t RemapTable::PlaceMemory(const Space& space, uint64_t start, uint64_t len,
                                 bool contiguous) {
  SpaceState& state = spaces_[space];
  const uint64_t end = start + len;
  // The same range placed before (a re-announced mapping) keeps its place.
  if (auto it = state.memory.find(start); it != state.memory.end() && it->second.end == end) {
    return start + it->second.delta;
  }
  uint64_t placed = Allocate(space, state, start, len, contiguous);
  // Cut what the new range overlaps out of older ranges, as the kernel does.
  auto it = state.memory.lower_bound(start);
  if (it != state.memory.begin()) {
    auto before = std::prev(it);
    if (before->second.end > start) {
      Range tail = before->second;
      before->second.end = start;
      if (tail.end > end) state.memory.emplace(end, Range{tail.end, tail.delta});
    }
  }
  while (it != state.memory.end() && it->first < end) {
    Range range = it->second;
    it = state.memory.erase(it);
    if (range.end > end) {
      state.memory.emplace(end, range);
      break;
    }
  }
  state.memory.emplace(start, Range{end, placed - start});
  return placed;
}

std::optional<uint64_t> RemapTable::TranslateFile(const Space& space, const void* dso,
                                                  uint64_t start, uint64_t pgoff,
                                                  uint64_t addr) const {
  auto s = spaces_.find(space);
  if (s == spaces_.end()) return std::nullopt;
  auto it = s->second.files.find(FileKey{dso, start - pgoff});
  if (it == s->second.files.end()) return std::nullopt;
  return addr + it->second;
}

std::optional<uint64_t> RemapTable::TranslateMemory(const Space& space, uint64_t addr) const {
  auto s = spaces_.find(space);
  if (s == spaces_.end()) return std::nullopt;
  const auto& memory = s->second.memory;
  auto it = memory.upper_bound(addr);
  if (it == memory.begin()) return std::nullopt;
  --it;
  if (addr >= it->second.end) return std::nullopt;
  return addr + it->second.delta;
}

uint64_t RemapTable::SubstituteUnknown(uint64_t addr, bool kernel_half) {
  if (addr < 0x10000) return addr;
  const uint64_t page = addr / page_size_ * page_size_;
  auto [it, inserted] = unknown_pages_.try_emplace(page, 0);
  if (inserted) {
    if (kernel_half) {
      if (next_unknown_kernel_ == 0) {
        next_unknown_kernel_ = kernel_is_64bit_ ? kUnknownKernelBase : kUnknownKernelBase32;
      }
      it->second = next_unknown_kernel_;
      next_unknown_kernel_ += page_size_;
    } else {
      it->second = next_unknown_user_;
      next_unknown_user_ += page_size_;
    }
  }
  return it->second + addr % page_size_;
}

void RemapTable::Fork(const Space& parent, const Space& child) {
  auto it = spaces_.find(parent);
  if (it == spaces_.end()) {
    spaces_.erase(child);
    return;
  }
  SpaceState copy = it->second;
  spaces_[child] = std::move(copy);
}

void RemapTable::Forget(const Space& space) { spaces_.erase(space); }

}  // namespace perftk
