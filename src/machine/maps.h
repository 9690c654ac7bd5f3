// Maps is one address space: sorted, non-overlapping Maps.
//
// Invariants, true at every moment a reader can observe:
//   - every map has start < end;
//   - maps are sorted by start and no two overlap.
//
// Concurrency: lookups (Find, Snapshot, size) take a shared lock and return
// copies, so a result is never torn and stays valid after later changes.
// Every change goes through Mutate(fn), which runs `fn` with the exclusive
// lock held; readers see the list as it was before fn or as fn left it, never
// a state in between. `fn` must not call back into the same Maps (deadlock).
//
// Inserting a map that overlaps existing ones cuts them like the kernel cuts
// VMAs: the piece before keeps its pgoff, the piece after starts at the new
// map's end with pgoff advanced by (new.end - old.start) (see
// Map::PgoffTracksAddress), and maps wholly covered are dropped.
#ifndef PERFTK_MACHINE_MAPS_H_
#define PERFTK_MACHINE_MAPS_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/types/span.h"
#include "base/shared_mutex.h"
#include "machine/map.h"

namespace perftk::machine {

// Remembers the last map one reader found in one Maps, so repeated lookups in
// the same map skip the lock. Owned by a single reader thread; never shared.
// It is revalidated against the Maps' change counter on every use, so it is
// never stale.
struct MapsCache {
  uint64_t maps_id = 0;
  uint64_t generation = 0;
  std::optional<Map> map;
};

class Maps {
 public:
  // The view of the list that Mutate hands to its function. Each operation
  // keeps the invariants above; an operation that fails changes nothing.
  class Editor {
   public:
    // Inserts `map`, cutting whatever it overlaps. InvalidArgument if
    // map.start >= map.end.
    absl::Status Insert(const Map& map);
    // Removes the map that covers `addr`; false if there is none.
    bool Remove(uint64_t addr);
    void Clear() { maps_.clear(); }
    const Map* Find(uint64_t addr) const;
    absl::Span<const Map> maps() const { return maps_; }

   private:
    friend class Maps;
    explicit Editor(std::vector<Map>& maps) : maps_(maps) {}
    std::vector<Map>& maps_;
  };

  Maps();
  Maps(const Maps&) = delete;
  Maps& operator=(const Maps&) = delete;

  // A new, independent Maps holding a copy of this one's maps (fork).
  std::shared_ptr<Maps> Clone() const;

  std::optional<Map> Find(uint64_t addr) const;
  // Like Find, but answers from `cache` without locking when the last map
  // found covers `addr` and nothing changed since.
  std::optional<Map> Find(uint64_t addr, MapsCache& cache) const;
  // The last map that starts at or below `addr`, whether or not it covers it.
  std::optional<Map> FindAtOrBelow(uint64_t addr) const;
  std::vector<Map> Snapshot() const;
  size_t size() const;
  // Counts completed Mutate calls; changes whenever the list may have.
  uint64_t generation() const { return generation_.load(std::memory_order_acquire); }

  // Runs fn(Editor&) under the exclusive lock and returns what fn returns.
  template <typename Fn>
  auto Mutate(Fn&& fn) -> std::invoke_result_t<Fn, Editor&> {
    base::WriterMutexLock lock(mu_);
    Editor editor(maps_);
    struct BumpOnExit {
      std::atomic<uint64_t>& generation;
      ~BumpOnExit() { generation.fetch_add(1, std::memory_order_release); }
    } bump{generation_};
    return std::forward<Fn>(fn)(editor);
  }

 private:
  static const Map* FindIn(absl::Span<const Map> maps, uint64_t addr);

  const uint64_t id_;
  mutable base::SharedMutex mu_;
  std::vector<Map> maps_ ABSL_GUARDED_BY(mu_);
  std::atomic<uint64_t> generation_{0};
};

}  // namespace perftk::machine

#endif  // PERFTK_MACHINE_MAPS_H_
