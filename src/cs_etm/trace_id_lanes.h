// Which lane a block of formatted trace goes to when each trace id's flow
// carries from one of its blocks into the next (samples with i and
// without l), and which earlier blocks it must wait for.
//
// One AUX buffer may hold the trace of several CPUs, each under its own
// trace id. A block that feeds one id goes to that id's lane, where its
// blocks run one after another. A block that feeds several ids goes to the
// lane of the lowest; one whose ids are not known (frames the scan cannot
// read), or that feeds none, goes to a shared lane. Either way it waits
// for the last block of each id it feeds that went to another lane. So
// every id's flow sees its blocks one at a time, in order, and blocks of
// different ids run side by side.
//
// Blocks are named by their ticket on the ordered stage; a lane by a key,
// kFirstLane + trace id, or kFirstLane + kSharedLane. Not thread-safe.
#ifndef PERFTK_CS_ETM_TRACE_ID_LANES_H_
#define PERFTK_CS_ETM_TRACE_ID_LANES_H_

#include <array>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "cs_etm/frame_scan.h"

namespace perftk::cs_etm {

class TraceIdLanes {
 public:
  // Lane keys: apart from the keys of raw trace's lanes (CPU numbers).
  static constexpr uint64_t kFirstLane = uint64_t{1} << 40;
  static constexpr uint64_t kSharedLane = 256;

  struct Assignment {
    uint64_t lane = 0;
    std::vector<uint64_t> after;  // tickets of blocks to run first, on other lanes
  };

  // Where a block feeding `ids` (nullopt: any id) goes, and what it waits for.
  Assignment Assign(const std::optional<TraceIdSet>& ids) const;
  // The block of `ticket`, feeding `ids`, went to `lane`.
  void Submitted(const std::optional<TraceIdSet>& ids, uint64_t lane, uint64_t ticket);

 private:
  // Per trace id: the lane and ticket of the last block that fed it.
  std::array<std::optional<std::pair<uint64_t, uint64_t>>, 256> last_{};
};

}  // namespace perftk::cs_etm

#endif  // PERFTK_CS_ETM_TRACE_ID_LANES_H_
