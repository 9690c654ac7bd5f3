// BranchProfile's counting: by runtime address first, located once per
// distinct range or branch when the block ends, with the counts, targets and
// breaks the packets say.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <tuple>
#include <vector>

#include "cs_etm/counting_cache.h"
#include "cs_etm/profile.h"
#include "gtest/gtest.h"

namespace perftk::cs_etm {
namespace {

// One binary at [base, base + 0x10000), offsets from base; what
// DirectBranchTarget answers is set by the test.
class OneBinary : public CodeLocator {
 public:
  explicit OneBinary(const machine::Dso* dso, uint64_t base = 0x400000) : dso_(dso), base_(base) {}
  std::optional<CodeLocation> Locate(const PacketContext&, uint64_t address) override {
    ++locates;
    if (address < base_ || address >= base_ + 0x10000) return std::nullopt;
    return CodeLocation{dso_, address - base_};
  }
  std::optional<uint64_t> DirectBranchTarget(const PacketContext&, uint64_t, Isa) override {
    ++target_reads;
    return read_target;
  }
  void Move(const machine::Dso* dso, uint64_t base) {
    dso_ = dso;
    base_ = base;
  }

  std::optional<uint64_t> read_target;
  int locates = 0;
  int target_reads = 0;

 private:
  const machine::Dso* dso_;
  uint64_t base_;
};

Packet Range(uint64_t start, uint64_t end, BranchKind branch = BranchKind::kNone,
             bool taken = false) {
  Packet p;
  p.start = start;
  p.end = end;
  p.instr_count = static_cast<uint32_t>((end - start) / 4);
  p.last_branch = branch;
  p.last_taken = taken;
  p.context = PacketContext{.pid = 10, .tid = 10, .el = 0};
  return p;
}

Packet WithTarget(Packet p, uint64_t target) {
  p.has_branch_target = true;
  p.branch_target = target;
  return p;
}

uint64_t RangeCount(const BranchProfile& profile, const machine::Dso& dso, uint64_t from,
                    uint64_t last) {
  auto it = profile.binaries().find(&dso);
  if (it == profile.binaries().end()) return 0;
  auto range = it->second.ranges.find({from, last});
  return range == it->second.ranges.end() ? 0 : range->second;
}

uint64_t BranchCount(const BranchProfile& profile, const machine::Dso& dso, uint64_t from,
                     uint64_t to, bool indirect) {
  auto it = profile.binaries().find(&dso);
  if (it == profile.binaries().end()) return 0;
  auto branch = it->second.branches.find(BranchProfile::Branch{from, to, indirect});
  return branch == it->second.branches.end() ? 0 : branch->second;
}

const machine::Dso kApp{"/bin/app", base::BuildId(), {}, false};
const machine::Dso kOther{"/bin/other", base::BuildId(), {}, false};

TEST(BranchProfile, TheTargetThePacketGivesIsNotReadAgain) {
  OneBinary locator(&kApp);
  locator.read_target = 0x400900;  // never asked for: the packet knows
  BranchProfile profile(locator);
  std::vector<Packet> packets;
  for (int i = 0; i < 5; ++i) {
    packets.push_back(WithTarget(Range(0x400100, 0x400110, BranchKind::kDirect, true), 0x400200));
    packets.push_back(Range(0x400200, 0x400208));
  }
  ASSERT_TRUE(profile.Consume(packets).ok());
  ASSERT_TRUE(profile.EndBlock().ok());
  EXPECT_EQ(locator.target_reads, 0);
  EXPECT_EQ(RangeCount(profile, kApp, 0x100, 0x10c), 5u);
  EXPECT_EQ(RangeCount(profile, kApp, 0x200, 0x204), 5u);
  EXPECT_EQ(BranchCount(profile, kApp, 0x10c, 0x200, false), 5u);
  // Located once per distinct range and branch, not per packet.
  EXPECT_LE(locator.locates, 5);
}

TEST(BranchProfile, WithoutATargetInThePacketTheCodeIsRead) {
  OneBinary locator(&kApp);
  locator.read_target = 0x400300;
  BranchProfile profile(locator);
  std::vector<Packet> packets = {Range(0x400100, 0x400110, BranchKind::kDirect, true),
                                 Range(0x400200, 0x400208)};
  ASSERT_TRUE(profile.Consume(packets).ok());
  ASSERT_TRUE(profile.EndBlock().ok());
  EXPECT_EQ(locator.target_reads, 1);
  EXPECT_EQ(BranchCount(profile, kApp, 0x10c, 0x300, false), 1u);

  // Unreadable code: the next range's start is the target.
  locator.read_target = std::nullopt;
  ASSERT_TRUE(profile.Consume(packets).ok());
  ASSERT_TRUE(profile.EndBlock().ok());
  EXPECT_EQ(BranchCount(profile, kApp, 0x10c, 0x200, false), 1u);
}

TEST(BranchProfile, AnIndirectBranchGoesWhereTheNextRangeOfItsThreadStarts) {
  OneBinary locator(&kApp);
  BranchProfile profile(locator);
  Packet other_thread;
  other_thread.kind = PacketKind::kContext;
  other_thread.context = PacketContext{.pid = 10, .tid = 11, .el = 0};
  Packet break_;
  break_.kind = PacketKind::kDiscontinuity;
  std::vector<Packet> packets = {
      Range(0x400100, 0x400110, BranchKind::kIndirect, true),
      Range(0x400400, 0x400408),
      Range(0x400100, 0x400110, BranchKind::kIndirect, true),
      break_,
      Range(0x400500, 0x400508),
      Range(0x400100, 0x400110, BranchKind::kIndirect, true),
      other_thread,
      Range(0x400600, 0x400608),
      Range(0x400100, 0x400110, BranchKind::kIndirect, true),  // pending at the end
  };
  ASSERT_TRUE(profile.Consume(packets).ok());
  ASSERT_TRUE(profile.EndBlock().ok());
  EXPECT_EQ(BranchCount(profile, kApp, 0x10c, 0x400, true), 1u);
  EXPECT_EQ(BranchCount(profile, kApp, 0x10c, 0, true), 3u);  // a break, a thread, the end
  EXPECT_EQ(RangeCount(profile, kApp, 0x100, 0x10c), 4u);
}

TEST(BranchProfile, RangesAndTargetsOutsideTheBinaryCountAsThePacketsSay) {
  OneBinary locator(&kApp);
  BranchProfile profile(locator);
  std::vector<Packet> packets = {
      // Out of every binary: no range, and its branch goes nowhere.
      Range(0x100, 0x110, BranchKind::kIndirect, true),
      Range(0x400200, 0x400208),
      // A target outside the binary is 0.
      WithTarget(Range(0x400100, 0x400110, BranchKind::kDirect, true), 0x900000),
      Range(0x400200, 0x400208),
  };
  ASSERT_TRUE(profile.Consume(packets).ok());
  ASSERT_TRUE(profile.EndBlock().ok());
  const BranchProfile::Binary& app = profile.binaries().at(&kApp);
  EXPECT_EQ(app.ranges.size(), 2u);
  EXPECT_EQ(RangeCount(profile, kApp, 0x200, 0x204), 2u);
  EXPECT_EQ(app.branches.size(), 1u);
  EXPECT_EQ(BranchCount(profile, kApp, 0x10c, 0, false), 1u);
}

TEST(BranchProfile, CountsFindTheirBinaryInTheModelOfTheirBlock) {
  OneBinary locator(&kApp);
  BranchProfile profile(locator);
  ASSERT_TRUE(profile.Consume(std::vector<Packet>{Range(0x400100, 0x400110)}).ok());
  ASSERT_TRUE(profile.EndBlock().ok());
  // The next block runs after the model changed: the same address is now
  // another binary's.
  locator.Move(&kOther, 0x400000);
  ASSERT_TRUE(profile.Consume(std::vector<Packet>{Range(0x400100, 0x400110)}).ok());
  profile.Flush();  // as the lane does when a block ends without EndBlock
  EXPECT_EQ(RangeCount(profile, kApp, 0x100, 0x10c), 1u);
  EXPECT_EQ(RangeCount(profile, kOther, 0x100, 0x10c), 1u);
}

TEST(BranchProfile, ManyDistinctRangesCountExactly) {
  OneBinary locator(&kApp);
  BranchProfile profile(locator);
  std::mt19937 random(7);
  std::map<std::pair<uint64_t, uint64_t>, uint64_t> want;
  std::vector<Packet> packets;
  for (int i = 0; i < 200000; ++i) {
    // 20000 distinct ranges, far more than the cache has slots.
    const uint64_t start = 0x400000 + (random() % 10000) * 4;
    const uint64_t end = start + 4 + (random() % 2) * 4;
    packets.push_back(Range(start, end));
    ++want[{start - 0x400000, end - 4 - 0x400000}];
  }
  ASSERT_TRUE(profile.Consume(packets).ok());
  ASSERT_TRUE(profile.EndBlock().ok());
  const BranchProfile::Binary& app = profile.binaries().at(&kApp);
  ASSERT_EQ(app.ranges.size(), want.size());
  for (const auto& [range, count] : want) {
    auto it = app.ranges.find(range);
    ASSERT_NE(it, app.ranges.end());
    EXPECT_EQ(it->second, count);
  }
}

// Profiles of different blocks add up to the profile of all of them:
// shared ranges and branches sum, the others are kept, in any number of
// parts, and the profile that adds them keeps none of its own.
TEST(BranchProfile, PartsAddUpToTheProfileOfAllTheirBlocks) {
  OneBinary locator(&kApp);
  const std::vector<std::vector<Packet>> blocks = {
      {Range(0x400100, 0x400110),
       WithTarget(Range(0x400200, 0x400210, BranchKind::kDirect, true), 0x400100)},
      {Range(0x400100, 0x400110), Range(0x400300, 0x400308)},
      {WithTarget(Range(0x400200, 0x400210, BranchKind::kDirect, true), 0x400100),
       Range(0x400100, 0x400104)},
  };
  BranchProfile whole(locator);
  std::vector<std::unique_ptr<BranchProfile>> parts;
  for (const std::vector<Packet>& block : blocks) {
    ASSERT_TRUE(whole.Consume(block).ok());
    ASSERT_TRUE(whole.EndBlock().ok());
    parts.push_back(std::make_unique<BranchProfile>(locator));
    ASSERT_TRUE(parts.back()->Consume(block).ok());
    ASSERT_TRUE(parts.back()->EndBlock().ok());
  }
  BranchProfile adder(locator);
  ASSERT_TRUE(adder.Consume(blocks[1]).ok());  // its own: not added
  ASSERT_TRUE(adder.EndBlock().ok());
  for (profile::Format format : {profile::Format::kAutoFdo, profile::Format::kBolt}) {
    const profile::Profile sum =
        adder.AddUp({parts[0].get(), parts[1].get(), parts[2].get()}, format);
    EXPECT_EQ(sum.binaries(), whole.ToProfile(format).binaries());
    const profile::BinaryCounts& app = sum.binaries().begin()->second;
    EXPECT_EQ(app.ranges.at({0x100, 0x10c}), 2u);
    EXPECT_EQ(app.ranges.at({0x300, 0x304}), 1u);
    EXPECT_EQ(app.branches.at({0x20c, 0x100}).taken, 2u);
  }
  EXPECT_TRUE(adder.AddUp({}, profile::Format::kAutoFdo).binaries().empty());
}

struct Counted {
  uint64_t n = 0;
  void Add(const Counted& other) { n += other.n; }
};
struct Low2Bits {  // a bad hash: every key collides with three quarters of the others
  uint64_t operator()(int key) const { return static_cast<uint64_t>(key & 3) << 62; }
};

TEST(CountingCache, CollidingKeysKeepEveryCount) {
  CountingCache<int, Counted, Low2Bits, 2> cache;
  std::map<int, uint64_t> want;
  std::mt19937 random(3);
  for (int i = 0; i < 10000; ++i) {
    const int key = static_cast<int>(random() % 50);
    const uint64_t n = random() % 5;
    cache[key].n += n;
    want[key] += n;
  }
  EXPECT_LE(cache.spilled(), 50u);
  absl::flat_hash_map<int, Counted>& got = cache.Drain();
  std::map<int, uint64_t> got_sorted;
  for (const auto& [key, counted] : got) got_sorted[key] = counted.n;
  EXPECT_EQ(got_sorted, want);
  got.clear();
  // Drained and cleared: empty.
  EXPECT_TRUE(cache.Drain().empty());
}

}  // namespace
}  // namespace perftk::cs_etm
