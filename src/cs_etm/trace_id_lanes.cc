#include "cs_etm/trace_id_lanes.h"

namespace perftk::cs_etm {

TraceIdLanes::Assignment TraceIdLanes::Assign(const std::optional<TraceIdSet>& ids) const {
  Assignment assignment;
  assignment.lane = kFirstLane + kSharedLane;
  if (ids && ids->any()) {
    size_t first = 0;
    while (!ids->test(first)) ++first;
    assignment.lane = kFirstLane + first;
  }
  for (size_t id = 0; id < last_.size(); ++id) {
    if (ids && !ids->test(id)) continue;
    if (!last_[id]) continue;
    const auto [lane, ticket] = *last_[id];
    if (lane != assignment.lane) assignment.after.push_back(ticket);
  }
  return assignment;
}

void TraceIdLanes::Submitted(const std::optional<TraceIdSet>& ids, uint64_t lane, uint64_t ticket) {
  for (size_t id = 0; id < last_.size(); ++id) {
    if (!ids || ids->test(id)) last_[id] = std::make_pair(lane, ticket);
  }
}

}  // namespace perftk::cs_etm
