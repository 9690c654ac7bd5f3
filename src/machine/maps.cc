#include "machine/maps.h"

#include <algorithm>
#include <iterator>
#include <mutex>
#include <shared_mutex>

#include "absl/strings/str_format.h"

namespace perftk::machine {
namespace {

std::atomic<uint64_t> next_maps_id{1};

// The first map whose end lies above `addr`, i.e. the first that could
// contain or follow it (ends are sorted because maps are disjoint).
std::vector<Map>::iterator FirstEndingAbove(std::vector<Map>& maps, uint64_t addr) {
  return std::upper_bound(maps.begin(), maps.end(), addr,
                          [](uint64_t a, const Map& m) { return a < m.end; });
}

}  // namespace

absl::Status Maps::Editor::Insert(const Map& map) {
  if (map.start >= map.end) {
    return absl::InvalidArgumentError(
        absl::StrFormat("map [%#x, %#x) is empty or reversed", map.start, map.end));
  }
  auto first = FirstEndingAbove(maps_, map.start);
  auto last = first;
  while (last != maps_.end() && last->start < map.end) ++last;

  // [first, last) overlap the new map; only the outer two can stick out.
  std::vector<Map> replacement;
  replacement.reserve(3);
  if (first != last && first->start < map.start) {
    Map before = *first;
    before.end = map.start;
    replacement.push_back(before);
  }
  replacement.push_back(map);
  if (first != last && std::prev(last)->end > map.end) {
    Map after = *std::prev(last);
    if (after.PgoffTracksAddress()) after.pgoff += map.end - after.start;
    after.start = map.end;
    replacement.push_back(after);
  }
  auto at = maps_.erase(first, last);
  maps_.insert(at, replacement.begin(), replacement.end());
  return absl::OkStatus();
}

bool Maps::Editor::Remove(uint64_t addr) {
  auto it = FirstEndingAbove(maps_, addr);
  if (it == maps_.end() || !it->Contains(addr)) return false;
  maps_.erase(it);
  return true;
}

const Map* Maps::Editor::Find(uint64_t addr) const { return Maps::FindIn(maps_, addr); }

Maps::Maps() : id_(next_maps_id.fetch_add(1, std::memory_order_relaxed)) {}

std::shared_ptr<Maps> Maps::Clone() const {
  auto copy = std::make_shared<Maps>();
  std::vector<Map> maps = Snapshot();
  copy->Mutate([&](Editor& editor) { editor.maps_ = std::move(maps); });
  return copy;
}

const Map* Maps::FindIn(absl::Span<const Map> maps, uint64_t addr) {
  auto it = std::upper_bound(maps.begin(), maps.end(), addr,
                             [](uint64_t a, const Map& m) { return a < m.end; });
  if (it == maps.end() || !it->Contains(addr)) return nullptr;
  return &*it;
}

std::optional<Map> Maps::FindAtOrBelow(uint64_t addr) const {
  base::ReaderMutexLock lock(mu_);
  auto it = std::upper_bound(maps_.begin(), maps_.end(), addr,
                             [](uint64_t a, const Map& m) { return a < m.start; });
  if (it == maps_.begin()) return std::nullopt;
  return *std::prev(it);
}

std::optional<Map> Maps::Find(uint64_t addr) const {
  base::ReaderMutexLock lock(mu_);
  const Map* map = FindIn(maps_, addr);
  if (map == nullptr) return std::nullopt;
  return *map;
}

std::optional<Map> Maps::Find(uint64_t addr, MapsCache& cache) const {
  if (cache.maps_id == id_ && cache.map.has_value() && cache.map->Contains(addr) &&
      cache.generation == generation_.load(std::memory_order_acquire)) {
    return cache.map;
  }
  base::ReaderMutexLock lock(mu_);
  const Map* map = FindIn(maps_, addr);
  cache.maps_id = id_;
  cache.generation = generation_.load(std::memory_order_relaxed);
  cache.map = map == nullptr ? std::nullopt : std::optional<Map>(*map);
  return cache.map;
}

std::vector<Map> Maps::Snapshot() const {
  base::ReaderMutexLock lock(mu_);
  return maps_;
}

size_t Maps::size() const {
  base::ReaderMutexLock lock(mu_);
  return maps_.size();
}

}  // namespace perftk::machine
