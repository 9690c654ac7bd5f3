// Attribution and --itrace semantics of the synthesizer on hand-made packets.
#include "cs_etm/synthesizer.h"

#include <initializer_list>
#include <map>
#include <vector>

#include "gtest/gtest.h"

namespace perftk::cs_etm {
namespace {

class NoMemory : public DecodeEnvironment {
 public:
  int32_t PidOf(int32_t tid) override { return tid; }
  uint32_t ReadCode(const PacketContext&, uint64_t, uint32_t, uint8_t*) override { return 0; }
};

class Collect : public SampleOutput {
 public:
  absl::Status Emit(const SynthesizedSample& sample) override {
    samples.push_back(sample);
    return absl::OkStatus();
  }
  std::vector<SynthesizedSample> samples;
};

PacketContext Thread(int32_t pid, int32_t tid) { return PacketContext{pid, tid, 0}; }

// A range of `count` A64 instructions at `start` ending in a taken branch.
Packet Range(uint64_t start, uint32_t count, PacketContext context, bool taken = true) {
  Packet p;
  p.kind = PacketKind::kRange;
  p.start = start;
  p.end = start + 4 * count;
  p.instr_count = count;
  p.last_branch = BranchKind::kDirect;
  p.last_taken = taken;
  p.trace_id = 0x10;
  p.context = context;
  return p;
}

Packet Context(PacketContext context) {
  Packet p;
  p.kind = PacketKind::kContext;
  p.trace_id = 0x10;
  p.context = context;
  return p;
}

Packet Discontinuity() {
  Packet p;
  p.kind = PacketKind::kDiscontinuity;
  p.trace_id = 0x10;
  return p;
}

TraceIdSet Ids(std::initializer_list<int> ids) {
  TraceIdSet set;
  for (int id : ids) set.set(id);
  return set;
}

ItraceOptions EveryTaken(const char* itrace, uint64_t n) {
  ItraceOptions options = *ParseItrace(itrace);
  options.taken_period = n;
  return options;
}

struct Fixture {
  explicit Fixture(const char* itrace) : Fixture(*ParseItrace(itrace)) {}
  explicit Fixture(const ItraceOptions& options) : synth(options, {{0x10, 3}}, memory, out) {
    synth.BeginBlock(kNoCpu, 777);
  }
  NoMemory memory;
  Collect out;
  SampleSynthesizer synth;
};

TEST(Synthesizer, PeriodSamplesAtTheRightInstruction) {
  Fixture f("i10il4");
  PacketContext a = Thread(100, 101);
  std::vector<Packet> packets = {Range(0x1000, 6, a), Range(0x2000, 6, a), Range(0x3000, 10, a)};
  ASSERT_TRUE(f.synth.Consume(packets).ok());
  ASSERT_TRUE(f.synth.EndBlock().ok());
  // 22 instructions: samples at instruction 10 (0x2000 + 3*4) and 20
  // (0x3000 + 7*4), then the end-of-block sample with the 2 left.
  ASSERT_EQ(f.out.samples.size(), 3u);
  EXPECT_EQ(f.out.samples[0].ip, 0x200cu);
  EXPECT_EQ(f.out.samples[0].period, 10u);
  EXPECT_EQ(f.out.samples[1].ip, 0x301cu);
  EXPECT_EQ(f.out.samples[2].ip, 0x3024u);  // last instruction of the last range
  EXPECT_EQ(f.out.samples[2].period, 2u);
  EXPECT_EQ(f.out.samples[0].cpu, 3u);
  EXPECT_EQ(f.out.samples[0].time, 777u);
  // Newest first: 0x2014 -> 0x3000, then 0x1014 -> 0x2000.
  ASSERT_EQ(f.out.samples[2].branches.size(), 2u);
  EXPECT_EQ(f.out.samples[2].branches[0].from, 0x2014u);
  EXPECT_EQ(f.out.samples[2].branches[0].to, 0x3000u);
  EXPECT_EQ(f.out.samples[2].branches[1].from, 0x1014u);
}

TEST(Synthesizer, RingKeepsTheNewestN) {
  Fixture f("i1000il3");
  PacketContext a = Thread(1, 1);
  std::vector<Packet> packets;
  for (uint64_t i = 0; i < 6; ++i) packets.push_back(Range(0x1000 * (i + 1), 2, a));
  packets.push_back(Discontinuity());
  ASSERT_TRUE(f.synth.Consume(packets).ok());
  ASSERT_EQ(f.out.samples.size(), 1u);
  const auto& b = f.out.samples[0].branches;
  ASSERT_EQ(b.size(), 3u);
  EXPECT_EQ(b[0].to, 0x6000u);
  EXPECT_EQ(b[1].to, 0x5000u);
  EXPECT_EQ(b[2].to, 0x4000u);
  // The discontinuity emptied the ring: the next sample starts fresh.
  ASSERT_TRUE(f.synth.Consume(std::vector<Packet>{Range(0x9000, 2, a), Range(0xa000, 2, a)}).ok());
  ASSERT_TRUE(f.synth.EndBlock().ok());
  ASSERT_EQ(f.out.samples.size(), 2u);
  EXPECT_EQ(f.out.samples[1].branches.size(), 1u);
}

// --every-taken 3 with l4: a sample at the target of every third taken
// branch, its stack the three branches since the previous sample plus the
// one that sample ended on, so every range between two taken branches is in
// exactly one stack (AutoFDO counts a range from entry i's target to entry
// i-1's source).
TEST(Synthesizer, EveryTakenStacksChainWithoutOverlap) {
  Fixture f(EveryTaken("il4", 3));
  PacketContext a = Thread(1, 1);
  // Eight ranges of varied length, each ending in a taken branch: seven
  // branches between them.
  auto length = [](uint64_t start) { return static_cast<uint32_t>(1 + (start / 0x1000) % 3); };
  auto last_of = [&](uint64_t start) { return start + 4 * (length(start) - 1); };
  std::vector<Packet> packets;
  for (uint64_t start = 0x1000; start <= 0x8000; start += 0x1000) {
    packets.push_back(Range(start, length(start), a));
  }
  ASSERT_TRUE(f.synth.Consume(packets).ok());
  ASSERT_TRUE(f.synth.EndBlock().ok());
  // Samples after branches 3 and 6 (at 0x4000 and 0x7000); the block end
  // adds one for branch 7.
  ASSERT_EQ(f.out.samples.size(), 3u);
  EXPECT_EQ(f.out.samples[0].ip, 0x4000u);
  EXPECT_EQ(f.out.samples[0].period, 3u);
  EXPECT_EQ(f.out.samples[1].ip, 0x7000u);
  EXPECT_EQ(f.out.samples[2].period, 1u);
  EXPECT_EQ(f.out.samples[2].ip, last_of(0x8000));
  ASSERT_EQ(f.out.samples[0].branches.size(), 3u);  // the ring had only three
  ASSERT_EQ(f.out.samples[1].branches.size(), 4u);
  ASSERT_EQ(f.out.samples[2].branches.size(), 2u);
  EXPECT_EQ(f.out.samples[1].branches[3].to, f.out.samples[0].branches[0].to);
  EXPECT_EQ(f.out.samples[2].branches[1].to, f.out.samples[1].branches[0].to);
  // The ranges AutoFDO takes from these stacks: each of the six between the
  // seven branches once.
  std::map<uint64_t, int> ranges;  // by start
  for (const SynthesizedSample& s : f.out.samples) {
    for (size_t i = 1; i < s.branches.size(); ++i) {
      ++ranges[s.branches[i].to];
      EXPECT_EQ(s.branches[i - 1].from, last_of(s.branches[i].to));
    }
  }
  ASSERT_EQ(ranges.size(), 6u);
  for (const auto& [start, count] : ranges) EXPECT_EQ(count, 1) << std::hex << start;
}

// No flow-end sample when no branch was taken since the last sample: its
// stack would only repeat that sample's newest branch. Without l, samples
// still come every N taken branches.
TEST(Synthesizer, EveryTakenFlowEnds) {
  PacketContext a = Thread(1, 1);
  {
    Fixture f(EveryTaken("il8", 2));
    std::vector<Packet> packets = {Range(0x1000, 2, a), Range(0x2000, 2, a),
                                   Range(0x3000, 5, a, /*taken=*/false), Discontinuity()};
    ASSERT_TRUE(f.synth.Consume(packets).ok());
    ASSERT_EQ(f.out.samples.size(), 1u);
    EXPECT_EQ(f.out.samples[0].ip, 0x3000u);
  }
  {
    Fixture f(EveryTaken("i", 2));
    std::vector<Packet> packets;
    for (uint64_t i = 0; i < 7; ++i) packets.push_back(Range(0x1000 * (i + 1), 2, a));
    ASSERT_TRUE(f.synth.Consume(packets).ok());
    ASSERT_TRUE(f.synth.EndBlock().ok());
    ASSERT_EQ(f.out.samples.size(), 3u);
    EXPECT_EQ(f.out.samples[2].ip, 0x7000u);
    EXPECT_EQ(f.out.samples[2].period, 2u);
    EXPECT_TRUE(f.out.samples[2].branches.empty());
  }
}

// A context switch inside a buffer: everything before it belongs to the old
// thread, everything after to the new one, and no stack holds both.
TEST(Synthesizer, ContextSwitchNeverMixesThreads) {
  Fixture f("i5il64b");
  PacketContext a = Thread(100, 101);
  PacketContext b = Thread(200, 202);
  std::vector<Packet> packets = {Range(0x1000, 3, a), Range(0x2000, 3, a), Context(b),
                                 Range(0x1000, 3, b), Range(0x2000, 3, b), Range(0x3000, 3, b)};
  ASSERT_TRUE(f.synth.Consume(packets).ok());
  ASSERT_TRUE(f.synth.EndBlock().ok());
  int a_samples = 0, b_samples = 0;
  for (const SynthesizedSample& s : f.out.samples) {
    const uint32_t tid = static_cast<uint32_t>(s.context.tid);
    ASSERT_TRUE(tid == 101 || tid == 202);
    (tid == 101 ? a_samples : b_samples)++;
    EXPECT_EQ(s.context.pid, tid == 101 ? 100 : 200);
    if (s.kind == SynthesizedSample::Kind::kBranch && s.ip != 0 && s.addr != 0) {
      // A branch sample never goes from one thread's range to the other's.
      EXPECT_FALSE(tid == 101 && s.addr == 0x1000);
    }
    for (const perf::BranchEntry& e : s.branches) {
      // Thread a's only branch is 0x1008 -> 0x2000; b's are 0x1008 -> 0x2000
      // and 0x2008 -> 0x3000. The cross-thread edge 0x2008 -> 0x1000 never appears.
      EXPECT_FALSE(e.from == 0x2008 && e.to == 0x1000);
    }
  }
  EXPECT_GT(a_samples, 0);
  EXPECT_GT(b_samples, 0);
  // The instruction samples of thread a: one at instruction 5 (0x2004), one
  // flushed at the switch with the last instruction.
  std::vector<uint64_t> a_ips;
  for (const SynthesizedSample& s : f.out.samples) {
    if (s.kind == SynthesizedSample::Kind::kInstruction && s.context.tid == 101) {
      a_ips.push_back(s.ip);
      EXPECT_LE(s.branches.size(), 1u);
    }
  }
  EXPECT_EQ(a_ips, (std::vector<uint64_t>{0x2004, 0x2008}));
}

TEST(Synthesizer, ExceptionMakesTheRangeEndATakenBranch) {
  Fixture f("i1000il8");
  PacketContext a = Thread(1, 1);
  Packet exception;
  exception.kind = PacketKind::kException;
  exception.trace_id = 0x10;
  std::vector<Packet> packets = {Range(0x1000, 2, a, /*taken=*/false), exception,
                                 Range(0x4000, 2, a)};
  ASSERT_TRUE(f.synth.Consume(packets).ok());
  ASSERT_TRUE(f.synth.EndBlock().ok());
  ASSERT_EQ(f.out.samples.size(), 1u);
  ASSERT_EQ(f.out.samples[0].branches.size(), 1u);
  EXPECT_EQ(f.out.samples[0].branches[0].from, 0x1004u);
  EXPECT_EQ(f.out.samples[0].branches[0].to, 0x4000u);
}

// Flows kept outside the synthesizer: two synthesizers (two lanes) take
// turns on one id's flow, and the instruction count carries between them.
TEST(Synthesizer, SharedFlowsCarryAcrossSynthesizers) {
  NoMemory memory;
  Collect out;
  ItraceOptions options = *ParseItrace("i10");
  SampleSynthesizer first(options, {{0x10, 3}}, memory, out);
  SampleSynthesizer second(options, {{0x10, 3}}, memory, out);
  TraceFlows flows;
  PacketContext a = Thread(100, 101);
  std::vector<Packet> six = {Range(0x1000, 6, a)};
  first.BeginBlock(kNoCpu, 1, flows, Ids({0x10}));
  ASSERT_TRUE(first.Consume(six).ok());
  ASSERT_TRUE(first.EndBlock().ok());
  second.BeginBlock(kNoCpu, 2, flows, Ids({0x10}));
  ASSERT_TRUE(second.Consume(six).ok());
  ASSERT_TRUE(second.EndBlock().ok());
  // 6 + 6 instructions: the 10th is the 4th of the second block.
  ASSERT_EQ(out.samples.size(), 1u);
  EXPECT_EQ(out.samples[0].ip, 0x100cu);
  EXPECT_EQ(out.samples[0].time, 2u);
}

// A block declared to feed id 0x12 only: the end of trace of the idle 0x10
// decoder leaves 0x10's flow (here its branch ring) alone; any other packet
// of 0x10 is an error.
TEST(Synthesizer, BlockTouchesOnlyItsOwnIds) {
  NoMemory memory;
  Collect out;
  SampleSynthesizer synth(*ParseItrace("i4il4"), {{0x10, 3}, {0x12, 4}}, memory, out);
  TraceFlows flows;
  PacketContext a = Thread(100, 101);
  std::vector<Packet> jump = {Range(0x1000, 1, a), Range(0x2000, 1, a)};
  synth.BeginBlock(kNoCpu, 1, flows, Ids({0x10}));
  ASSERT_TRUE(synth.Consume(jump).ok());
  ASSERT_TRUE(synth.EndBlock().ok());

  std::vector<Packet> idle = {Discontinuity()};
  synth.BeginBlock(kNoCpu, 2, flows, Ids({0x12}));
  EXPECT_TRUE(synth.Consume(idle).ok());
  absl::Status foreign = synth.Consume(jump);
  EXPECT_EQ(foreign.code(), absl::StatusCode::kInternal) << foreign;
  ASSERT_TRUE(synth.EndBlock().ok());

  std::vector<Packet> four = {Range(0x3000, 4, a)};
  synth.BeginBlock(kNoCpu, 3, flows, Ids({0x10}));
  ASSERT_TRUE(synth.Consume(four).ok());
  ASSERT_TRUE(synth.EndBlock().ok());
  // Block 1's end sample, then the 4th instruction of block 3 with the
  // branch of block 1 still on the ring, then block 3's end sample.
  ASSERT_EQ(out.samples.size(), 3u);
  EXPECT_EQ(out.samples[1].ip, 0x300cu);
  EXPECT_EQ(out.samples[1].cpu, 3u);
  ASSERT_EQ(out.samples[1].branches.size(), 1u);
  EXPECT_EQ(out.samples[1].branches[0].from, 0x1000u);
  EXPECT_EQ(out.samples[1].branches[0].to, 0x2000u);
}

}  // namespace
}  // namespace perftk::cs_etm
