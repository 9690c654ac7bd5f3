// The lanes of formatted blocks whose flows carry from block to block: a
// block of one id on that id's lane, of several on the lowest id's lane
// after the other ids' last blocks elsewhere, of unknown or no ids on the
// shared lane.
#include "cs_etm/trace_id_lanes.h"

#include <initializer_list>
#include <optional>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace perftk::cs_etm {
namespace {

constexpr uint64_t kShared = TraceIdLanes::kFirstLane + TraceIdLanes::kSharedLane;

std::optional<TraceIdSet> Ids(std::initializer_list<size_t> ids) {
  TraceIdSet set;
  for (size_t id : ids) set.set(id);
  return set;
}

uint64_t LaneOf(size_t id) { return TraceIdLanes::kFirstLane + id; }

using Tickets = std::vector<uint64_t>;

// An assignment to `lane` after the tickets `after`, in that order.
MATCHER_P2(Assigned, lane, after, "") { return arg.lane == lane && arg.after == after; }

TEST(TraceIdLanes, ABlockOfOneIdGoesToThatIdsLane) {
  TraceIdLanes lanes;
  EXPECT_THAT(lanes.Assign(Ids({0x12})), Assigned(LaneOf(0x12), Tickets{}));
  lanes.Submitted(Ids({0x12}), LaneOf(0x12), 0);
  // The next block of the id: the same lane, whose order is enough.
  EXPECT_THAT(lanes.Assign(Ids({0x12})), Assigned(LaneOf(0x12), Tickets{}));
}

TEST(TraceIdLanes, BlocksOfOtherIdsDoNotWaitForEachOther) {
  TraceIdLanes lanes;
  lanes.Submitted(Ids({0x10}), LaneOf(0x10), 0);
  EXPECT_THAT(lanes.Assign(Ids({0x11})), Assigned(LaneOf(0x11), Tickets{}));
}

TEST(TraceIdLanes, ABlockOfSeveralIdsWaitsForTheirLastBlocksElsewhere) {
  TraceIdLanes lanes;
  lanes.Submitted(Ids({0x10}), LaneOf(0x10), 0);
  lanes.Submitted(Ids({0x11}), LaneOf(0x11), 1);
  lanes.Submitted(Ids({0x12}), LaneOf(0x12), 2);
  lanes.Submitted(Ids({0x11}), LaneOf(0x11), 3);
  // The lowest id's lane; 0x12's last block ran elsewhere, 0x10 is not fed.
  EXPECT_THAT(lanes.Assign(Ids({0x11, 0x12})), Assigned(LaneOf(0x11), Tickets{2}));
  lanes.Submitted(Ids({0x11, 0x12}), LaneOf(0x11), 4);
  // 0x12's flow went on on 0x11's lane: its next block waits for that one.
  EXPECT_THAT(lanes.Assign(Ids({0x12})), Assigned(LaneOf(0x12), Tickets{4}));
}

TEST(TraceIdLanes, ABlockOfUnknownIdsGoesToTheSharedLaneAfterEveryId) {
  TraceIdLanes lanes;
  lanes.Submitted(Ids({0x10}), LaneOf(0x10), 0);
  lanes.Submitted(Ids({0x20}), LaneOf(0x20), 1);
  // Every id's last block, in the order of the ids.
  EXPECT_THAT(lanes.Assign(std::nullopt), Assigned(kShared, Tickets{0, 1}));
  lanes.Submitted(std::nullopt, kShared, 2);
  // It may have fed any id: every id's next block comes after it.
  EXPECT_THAT(lanes.Assign(Ids({0x30})), Assigned(LaneOf(0x30), Tickets{2}));
  EXPECT_THAT(lanes.Assign(Ids({0x10})), Assigned(LaneOf(0x10), Tickets{2}));
  // And the next unknown one follows it on the shared lane alone.
  EXPECT_THAT(lanes.Assign(std::nullopt), Assigned(kShared, Tickets{}));
}

TEST(TraceIdLanes, ABlockOfNoIdGoesToTheSharedLaneAndWaitsForNothing) {
  TraceIdLanes lanes;
  lanes.Submitted(Ids({0x10}), LaneOf(0x10), 0);
  EXPECT_THAT(lanes.Assign(TraceIdSet{}), Assigned(kShared, Tickets{}));
  lanes.Submitted(TraceIdSet{}, kShared, 1);
  // It fed no id: 0x10's next block does not wait for it.
  EXPECT_THAT(lanes.Assign(Ids({0x10})), Assigned(LaneOf(0x10), Tickets{}));
}

}  // namespace
}  // namespace perftk::cs_etm
