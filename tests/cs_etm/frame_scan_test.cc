#include "cs_etm/frame_scan.h"

#include <cstdint>
#include <initializer_list>
#include <vector>

#include "gtest/gtest.h"

namespace perftk::cs_etm {
namespace {

using Frame = std::vector<uint8_t>;

// A frame of data bytes (even ones with bit 0 clear) with the ID changes
// `ids` (position, id) written in.
Frame MakeFrame(std::initializer_list<std::pair<int, uint8_t>> ids) {
  Frame frame(16);
  for (int i = 0; i < 15; ++i) frame[i] = static_cast<uint8_t>(0x40 + 2 * i);
  frame[15] = 0;
  for (const auto& [position, id] : ids) frame[position] = static_cast<uint8_t>(id << 1 | 1);
  return frame;
}

Frame SyncFrame() {
  Frame frame;
  for (int word = 0; word < 4; ++word) frame.insert(frame.end(), {0xff, 0xff, 0xff, 0x7f});
  return frame;
}

std::optional<TraceIdSet> Scan(std::initializer_list<Frame> frames) {
  std::vector<std::byte> bytes;
  for (const Frame& frame : frames) {
    for (uint8_t b : frame) bytes.push_back(std::byte{b});
  }
  return TraceIdsOfFrames(base::Bytes(bytes));
}

TraceIdSet Ids(std::initializer_list<int> ids) {
  TraceIdSet set;
  for (int id : ids) set.set(id);
  return set;
}

TEST(FrameScan, NoFramesFeedNoId) { EXPECT_EQ(Scan({}), TraceIdSet()); }

TEST(FrameScan, DataWithoutIdChangeFeedsNoId) {
  EXPECT_EQ(Scan({MakeFrame({}), MakeFrame({})}), TraceIdSet());
}

TEST(FrameScan, IdChangesAtEvenBytesOfEveryFrame) {
  EXPECT_EQ(Scan({MakeFrame({{0, 0x10}}), MakeFrame({{6, 0x12}, {14, 0x1e}})}),
            Ids({0x10, 0x12, 0x1e}));
}

TEST(FrameScan, OddBytesAndTheFlagByteAreNeverIds) {
  Frame frame = MakeFrame({{2, 0x14}});
  frame[1] = 0x21;   // data that looks like an id change to 0x10
  frame[13] = 0x25;  // and to 0x12
  frame[15] = 0xff;  // all flag bits set
  EXPECT_EQ(Scan({frame}), Ids({0x14}));
}

TEST(FrameScan, WholeSyncFramesAreSkipped) {
  EXPECT_EQ(Scan({SyncFrame(), MakeFrame({{0, 0x10}}), SyncFrame()}), Ids({0x10}));
}

TEST(FrameScan, SyncWordsThatMayShiftFramesGiveAnyId) {
  Frame frame = MakeFrame({{0, 0x10}});
  for (int i = 4; i < 8; ++i) frame[i] = SyncFrame()[i];
  EXPECT_EQ(Scan({frame}), std::nullopt);
}

TEST(FrameScan, PartialFrameGivesAnyId) {
  Frame cut = MakeFrame({{0, 0x10}});
  cut.resize(12);
  EXPECT_EQ(Scan({MakeFrame({{0, 0x10}}), cut}), std::nullopt);
}

}  // namespace
}  // namespace perftk::cs_etm
