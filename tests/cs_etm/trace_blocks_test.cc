#include "cs_etm/trace_blocks.h"

#include <vector>

#include "gtest/gtest.h"

namespace perftk::cs_etm {
namespace {

AuxFragment Aux(uint32_t cpu, uint64_t offset, uint64_t size, uint64_t flags = 0) {
  AuxFragment f;
  f.cpu = cpu;
  f.offset = offset;
  f.size = size;
  f.flags = flags;
  f.time = 1000 + offset;
  return f;
}

AuxtraceBuffer Buffer(uint32_t cpu, uint64_t offset, uint64_t size) {
  AuxtraceBuffer b;
  b.cpu = cpu;
  b.idx = cpu;
  b.offset = offset;
  b.size = size;
  b.file_offset = 5000;
  return b;
}

TEST(TraceBlocks, OneBlockPerAuxRecordOfTheSameCpu) {
  TraceBlockGatherer gatherer;
  gatherer.AddAux(Aux(7, 0, 0x50));
  gatherer.AddAux(Aux(3, 0, 0x10));  // another CPU's
  gatherer.AddAux(Aux(7, 0x50, 0x30, kAuxFlagCoresightRaw));
  std::vector<std::byte> payload(0x80);
  for (size_t i = 0; i < payload.size(); ++i) payload[i] = std::byte(i);
  auto blocks = gatherer.AddAuxtrace(Buffer(7, 0, 0x80), payload);
  ASSERT_EQ(blocks.size(), 2u);
  EXPECT_EQ(blocks[0].data.size(), 0x50u);
  EXPECT_TRUE(blocks[0].formatted);
  EXPECT_EQ(blocks[0].time, 1000u);
  EXPECT_EQ(blocks[0].file_offset, 5000u + 48);
  EXPECT_EQ(blocks[1].data.size(), 0x30u);
  EXPECT_EQ(blocks[1].data[0], std::byte(0x50));
  EXPECT_FALSE(blocks[1].formatted);
  EXPECT_EQ(blocks[1].file_offset, 5000u + 48 + 0x50);
  // CPU 3's record never got data.
  auto notes = gatherer.Finish();
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("no AUXTRACE data"), std::string::npos) << notes[0];
  EXPECT_EQ(gatherer.missing_aux_records(), 1u);
}

TEST(TraceBlocks, FragmentSpanningTwoBuffers) {
  TraceBlockGatherer gatherer;
  gatherer.AddAux(Aux(0, 0x30, 0x40));
  std::vector<std::byte> first(0x50), second(0x50);
  auto a = gatherer.AddAuxtrace(Buffer(0, 0, 0x50), first);
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].aux_offset, 0x30u);
  EXPECT_EQ(a[0].data.size(), 0x20u);
  auto b = gatherer.AddAuxtrace(Buffer(0, 0x50, 0x50), second);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].aux_offset, 0x50u);
  EXPECT_EQ(b[0].data.size(), 0x20u);
  EXPECT_TRUE(gatherer.Finish().empty());
}

TEST(TraceBlocks, BufferWithoutAuxRecordsIsOneBlock) {
  TraceBlockGatherer gatherer;
  std::vector<std::byte> payload(0x40);
  auto blocks = gatherer.AddAuxtrace(Buffer(2, 0x1000, 0x40), payload);
  ASSERT_EQ(blocks.size(), 1u);
  EXPECT_EQ(blocks[0].data.size(), 0x40u);
  EXPECT_TRUE(blocks[0].formatted);
}

TEST(TraceBlocks, PerThreadBuffersMatchByThread) {
  TraceBlockGatherer gatherer;
  AuxFragment f = Aux(5, 0, 0x20);
  f.tid = 42;
  gatherer.AddAux(f);
  std::vector<std::byte> payload(0x20);
  AuxtraceBuffer other = Buffer(kNoCpu, 0, 0x20);
  other.tid = 43;
  EXPECT_EQ(gatherer.AddAuxtrace(other, payload).front().time, 0u);  // not f's
  AuxtraceBuffer mine = Buffer(kNoCpu, 0, 0x20);
  mine.tid = 42;
  auto blocks = gatherer.AddAuxtrace(mine, payload);
  ASSERT_EQ(blocks.size(), 1u);
  EXPECT_EQ(blocks[0].time, f.time);
  EXPECT_EQ(blocks[0].cpu, 5u);
}

TEST(TraceBlocks, TruncatedAuxIsReported) {
  TraceBlockGatherer gatherer;
  gatherer.AddAux(Aux(1, 0, 0x10, kAuxFlagTruncated));
  std::vector<std::byte> payload(0x10);
  EXPECT_EQ(gatherer.AddAuxtrace(Buffer(1, 0, 0x10), payload).size(), 1u);
  auto notes = gatherer.Finish();
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("truncated"), std::string::npos);
}

}  // namespace
}  // namespace perftk::cs_etm
