// The lanes of formatted blocks whose flows carry from block to block: a
// block of one id on that id's lane, of several on the lowest id's lane
// after the other ids' last blocks elsewhere, of unknown or no ids on the
// shared lane.
#include "cs_etm/trace_id_lanes.h"

#include <initializer_list>
#include <optional>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace perftk::cs_etm {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

constexpr uint64_t kShared = TraceIdLanes::kFirstLane + TraceIdLanes::kSharedLane;

std::optional<TraceIdSet> Ids(std::initializer_list<size_t> ids) {
  TraceIdSet set;
  for (size_t id : ids) set.set(id);
  return set;
}

uint64_t LaneOf(size_t id) { return TraceIdLanes::kFirstLane + id; }

TEST(TraceIdLanes, ABlockOfOneIdGoesToThatIdsLane) {
  TraceIdLanes lanes;
  TraceIdLanes::Assignment first = lanes.Assign(Ids({0x12}));
  EXPECT_EQ(first.lane, LaneOf(0x12));
  EXPECT_THAT(first.after, IsEmpty());
  lanes.Submitted(Ids({0x12}), first.lane, 0);
  // The next block of the id: the same lane, whose order is enough.
  TraceIdLanes::Assignment second = lanes.Assign(Ids({0x12}));
  EXPECT_EQ(second.lane, LaneOf(0x12));
  EXPECT_THAT(second.after, IsEmpty());
}

TEST(TraceIdLanes, BlocksOfOtherIdsDoNotWaitForEachOther) {
  TraceIdLanes lanes;
  lanes.Submitted(Ids({0x10}), LaneOf(0x10), 0);
  TraceIdLanes::Assignment other = lanes.Assign(Ids({0x11}));
  EXPECT_EQ(other.lane, LaneOf(0x11));
  EXPECT_THAT(other.after, IsEmpty());
}

TEST(TraceIdLanes, ABlockOfSeveralIdsWaitsForTheirLastBlocksElsewhere) {
  TraceIdLanes lanes;
  lanes.Submitted(Ids({0x10}), LaneOf(0x10), 0);
  lanes.Submitted(Ids({0x11}), LaneOf(0x11), 1);
  lanes.Submitted(Ids({0x12}), LaneOf(0x12), 2);
  lanes.Submitted(Ids({0x11}), LaneOf(0x11), 3);
  TraceIdLanes::Assignment both = lanes.Assign(Ids({0x11, 0x12}));
  // The lowest id's lane; 0x12's last block ran elsewhere, 0x10 is not fed.
  EXPECT_EQ(both.lane, LaneOf(0x11));
  EXPECT_THAT(both.after, ElementsAre(2));
  lanes.Submitted(Ids({0x11, 0x12}), both.lane, 4);
  // 0x12's flow went on on 0x11's lane: its next block waits for that one.
  TraceIdLanes::Assignment next = lanes.Assign(Ids({0x12}));
  EXPECT_EQ(next.lane, LaneOf(0x12));
  EXPECT_THAT(next.after, ElementsAre(4));
}

TEST(TraceIdLanes, ABlockOfUnknownIdsGoesToTheSharedLaneAfterEveryId) {
  TraceIdLanes lanes;
  lanes.Submitted(Ids({0x10}), LaneOf(0x10), 0);
  lanes.Submitted(Ids({0x20}), LaneOf(0x20), 1);
  TraceIdLanes::Assignment unknown = lanes.Assign(std::nullopt);
  EXPECT_EQ(unknown.lane, kShared);
  EXPECT_THAT(unknown.after, UnorderedElementsAre(0, 1));
  lanes.Submitted(std::nullopt, unknown.lane, 2);
  // It may have fed any id: every id's next block comes after it.
  EXPECT_THAT(lanes.Assign(Ids({0x30})).after, ElementsAre(2));
  EXPECT_THAT(lanes.Assign(Ids({0x10})).after, ElementsAre(2));
  // And the next unknown one follows it on the shared lane alone.
  EXPECT_THAT(lanes.Assign(std::nullopt).after, IsEmpty());
}

TEST(TraceIdLanes, ABlockOfNoIdGoesToTheSharedLaneAndWaitsForNothing) {
  TraceIdLanes lanes;
  lanes.Submitted(Ids({0x10}), LaneOf(0x10), 0);
  TraceIdLanes::Assignment none = lanes.Assign(TraceIdSet{});
  EXPECT_EQ(none.lane, kShared);
  EXPECT_THAT(none.after, IsEmpty());
  lanes.Submitted(TraceIdSet{}, none.lane, 1);
  // It fed no id: 0x10's next block does not wait for it.
  EXPECT_THAT(lanes.Assign(Ids({0x10})).after, IsEmpty());
}

}  // namespace
}  // namespace perftk::cs_etm
