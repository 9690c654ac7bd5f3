// Counts by key, with a direct-mapped cache in front of the hash map.
//
// A decoded trace counts the same few thousand ranges and branches millions
// of times; a slot chosen by a cheap hash of the key answers most of those
// counts with one compare, and the hash map sees a key only when its slot
// is taken by another, or at Drain. `Counts` adds another of its kind with
// `Add`; `SlotOf` maps a key to any 64-bit number, its high bits pick the
// slot.
#ifndef PERFTK_CS_ETM_COUNTING_CACHE_H_
#define PERFTK_CS_ETM_COUNTING_CACHE_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"

namespace perftk::cs_etm {

template <typename Key, typename Counts, typename SlotOf, int kSlotBits = 12>
class CountingCache {
 public:
  CountingCache() : slots_(size_t{1} << kSlotBits) {}

  // The counts of `key`, to add to.
  Counts& operator[](const Key& key) {
    Slot& slot = slots_[SlotOf{}(key) >> (64 - kSlotBits)];
    if (!slot.used || !(slot.key == key)) {
      if (slot.used) spilled_[slot.key].Add(slot.counts);
      slot = Slot{key, Counts{}, true};
    }
    return slot.counts;
  }

  // Keys in the map, an upper bound on the distinct keys counted; the
  // slots add at most 2^kSlotBits more.
  size_t spilled() const { return spilled_.size(); }

  // Every key's counts; the cache is empty after the caller clears them.
  absl::flat_hash_map<Key, Counts>& Drain() {
    for (Slot& slot : slots_) {
      if (!slot.used) continue;
      spilled_[slot.key].Add(slot.counts);
      slot.used = false;
    }
    return spilled_;
  }

 private:
  struct Slot {
    Key key{};
    Counts counts{};
    bool used = false;
  };
  std::vector<Slot> slots_;
  absl::flat_hash_map<Key, Counts> spilled_;
};

}  // namespace perftk::cs_etm

#endif  // PERFTK_CS_ETM_COUNTING_CACHE_H_
