// AtomPaths alone: a path is found by its whole key only, a new block
// forgets every path, and a full pool keeps no more paths while the
// packets of those it has stay where kPath packets point.
#include "cs_etm/atom_paths.h"

#include <cstdint>
#include <vector>

#include "gtest/gtest.h"

namespace perftk::cs_etm {
namespace {

std::vector<Packet> Ranges(uint64_t start, int n) {
  std::vector<Packet> packets(static_cast<size_t>(n));
  for (Packet& packet : packets) {
    packet.start = start;
    packet.end = start + 8;
    packet.instr_count = 2;
    start += 0x100;
  }
  return packets;
}

AtomPathEnd EndAt(uint64_t address) {
  AtomPathEnd end;
  end.address = address;
  return end;
}

TEST(AtomPaths, AFoundPathHasWhatWasStored) {
  AtomPaths paths;
  const AtomPathKey key{.start = 0x400000, .bits = 0b101, .count = 3, .el = 0, .pid = 7};
  EXPECT_EQ(paths.Find(key), nullptr);
  const std::vector<Packet> made = Ranges(0x400000, 3);
  paths.Store(key, 3, made, /*pushes=*/0b010, EndAt(0x400300));
  const AtomPaths::Path* path = paths.Find(key);
  ASSERT_NE(path, nullptr);
  EXPECT_EQ(path->atoms, 3);
  EXPECT_EQ(path->pushes, 0b010u);
  EXPECT_EQ(path->end.address, 0x400300u);
  ASSERT_EQ(paths.PacketsOf(*path).size(), 3u);
  EXPECT_EQ(paths.PacketsOf(*path)[2].start, 0x400200u);
}

TEST(AtomPaths, EveryPartOfTheKeyCounts) {
  AtomPaths paths;
  const AtomPathKey key{.start = 0x400000, .bits = 0b101, .count = 3, .el = 0, .pid = 7};
  paths.Store(key, 2, Ranges(0x400000, 2), 0, EndAt(0x400200));
  std::vector<AtomPathKey> others(5, key);
  others[0].start += 4;
  others[1].bits ^= 1;
  others[2].count = 4;
  others[3].el = 1;
  others[4].pid = 8;
  for (size_t i = 0; i < others.size(); ++i) {
    EXPECT_EQ(paths.Find(others[i]), nullptr) << "key part " << i;
  }
  EXPECT_NE(paths.Find(key), nullptr);
}

TEST(AtomPaths, ANewBlockForgetsEveryPath) {
  AtomPaths paths;
  const AtomPathKey key{.start = 0x400000, .bits = 1, .count = 1, .el = 0, .pid = 7};
  paths.Store(key, 1, Ranges(0x400000, 1), 0, EndAt(0x400100));
  paths.Clear();
  EXPECT_EQ(paths.Find(key), nullptr);
  EXPECT_EQ(paths.pooled_packets(), 0u);
}

TEST(AtomPaths, PacketsOfTooManyAtomsAreNotKept) {
  AtomPaths paths;
  const AtomPathKey key{
      .start = 0x400000, .bits = ~0u, .count = AtomPaths::kMaxAtoms + 1, .el = 0, .pid = 0};
  paths.Store(key, AtomPaths::kMaxAtoms, Ranges(0x400000, AtomPaths::kMaxAtoms), 0, EndAt(0));
  EXPECT_EQ(paths.Find(key), nullptr);
}

TEST(AtomPaths, AFullPoolKeepsNoMorePathsAndMovesNone) {
  AtomPaths paths;
  const std::vector<Packet> made = Ranges(0x400000, 32);
  const AtomPathKey first_key{.start = 0x400000, .bits = 1, .count = 32, .el = 0, .pid = 1};
  paths.Store(first_key, 32, made, 0, EndAt(0));
  const Packet* first_packets = paths.PacketsOf(*paths.Find(first_key)).data();
  uint32_t pid = 2;
  while (paths.pooled_packets() + made.size() <= AtomPaths::kMaxPackets) {
    // Other keys, most in other slots.
    paths.Store(
        AtomPathKey{
            .start = 0x400000, .bits = 1, .count = 32, .el = 0, .pid = static_cast<int32_t>(pid++)},
        32, made, 0, EndAt(0));
  }
  const size_t pooled = paths.pooled_packets();
  const AtomPathKey late{.start = 0x500000, .bits = 3, .count = 2, .el = 0, .pid = 1};
  paths.Store(late, 2, Ranges(0x500000, made.size()), 0, EndAt(0));
  EXPECT_EQ(paths.Find(late), nullptr);
  EXPECT_EQ(paths.pooled_packets(), pooled);
  // Where kPath packets made from the first path point: still its packets.
  EXPECT_EQ(first_packets[31].start, made[31].start);
}

}  // namespace
}  // namespace perftk::cs_etm
