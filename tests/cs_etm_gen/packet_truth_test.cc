// The decoder's packets against the truth, below sample synthesis: every
// range OpenCSD decodes from the generated trace is an executed stretch of
// the simulator, in order, stamped with the pid, tid and exception level
// that ran it and with the last CoreSight timestamp before it. Also checks
// that the encoder really used the packet formats it claims, and that cut
// trace is decoded without failing.
#include <map>
#include <vector>

#include "absl/strings/str_format.h"
#include "cpu_tracer.h"
#include "cs_etm/decoder.h"
#include "cs_etm/metadata.h"
#include "etm_encoder.h"
#include "gtest/gtest.h"
#include "programs.h"
#include "recording_writer.h"

namespace perftk::etm_gen {
namespace {

constexpr uint64_t kBaseA = 0x555500000000ULL;
constexpr uint64_t kBaseB = 0x7f7700000000ULL;

// Reads the generated programs as the processes map them.
class ProgramMemory : public cs_etm::DecodeEnvironment {
 public:
  explicit ProgramMemory(const DemoPrograms& programs) : programs_(programs) {}
  int32_t PidOf(int32_t tid) override { return tid == 101 ? 100 : tid; }
  uint32_t ReadCode(const cs_etm::PacketContext& context, uint64_t address, uint32_t size,
                    uint8_t* out) override {
    const bool kernel = context.el >= 1;
    const uint64_t base = kernel ? kKernelBase : context.pid == 100 ? kBaseA : kBaseB;
    const std::vector<uint32_t>& code = kernel ? programs_.kernel.code : programs_.user.code;
    const uint64_t start = base + kTextOffset;
    if (address < start || address >= start + 4 * code.size()) return 0;
    uint32_t n = 0;
    for (; n < size && address + n < start + 4 * code.size(); ++n) {
      uint64_t offset = address + n - start;
      out[n] = static_cast<uint8_t>(code[offset / 4] >> (8 * (offset % 4)));
    }
    return n;
  }

 private:
  const DemoPrograms& programs_;
};

class Collect : public cs_etm::PacketSink {
 public:
  absl::Status Consume(std::span<const cs_etm::Packet> packets) override {
    all.insert(all.end(), packets.begin(), packets.end());
    return absl::OkStatus();
  }
  std::vector<cs_etm::Packet> all;
};

std::string Describe(uint64_t start, uint64_t end, uint32_t count, int32_t pid, int32_t tid, int el,
                     uint64_t ts) {
  return absl::StrFormat("[%#x,%#x) n=%d %d/%d EL%d ts=%d", start, end, count, pid, tid, el, ts);
}

class PacketTruth : public ::testing::Test {
 protected:
  void SetUp() override {
    auto built = BuildDemoPrograms();
    ASSERT_TRUE(built.ok()) << built.status();
    programs_ = std::move(*built);
  }
  ThreadState Thread(int32_t pid, int32_t tid, uint64_t seed, int syscalls) {
    uint64_t base = pid == 100 ? kBaseA : kBaseB;
    return MakeThread(programs_, pid, tid, base,
                      RandomDecider(programs_, base, seed, 700, syscalls));
  }
  // Decodes `trace` of cpu 0 (formatted or raw) into packets.
  std::vector<cs_etm::Packet> DecodePackets(const std::vector<uint8_t>& trace, bool formatted,
                                            bool timestamps, size_t batch = 1024) {
    auto info = cs_etm::ParseCsEtmInfo(CsEtmInfoWords(1, timestamps));
    EXPECT_TRUE(info.ok()) << info.status();
    ProgramMemory memory(programs_);
    auto decoder = cs_etm::TraceDecoder::Create(*info, {}, formatted, 0, memory, batch);
    EXPECT_TRUE(decoder.ok()) << decoder.status();
    cs_etm::TraceBlock block;
    block.cpu = 0;
    block.formatted = formatted;
    std::vector<uint8_t> bytes = trace;
    if (formatted) {
      FrameFormatter formatter;
      formatter.Add(TraceIdOfCpu(0), trace);
      bytes = formatter.Finish();
    }
    block.data = base::Bytes(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size());
    Collect sink;
    absl::Status status = (*decoder)->Decode(block, sink);
    EXPECT_TRUE(status.ok()) << status;
    EXPECT_EQ((*decoder)->decode_errors(), 0u) << (*decoder)->first_error();
    return sink.all;
  }

  DemoPrograms programs_;
};

TEST_F(PacketTruth, EveryRangeIsStampedWithItsThreadElAndTimestamp) {
  for (uint32_t every : {0u, 1u, 7u}) {
    for (bool formatted : {false, true}) {
      CpuTracer tracer(0, every);
      ThreadState a = Thread(100, 100, 5, 300), a2 = Thread(100, 101, 6, 0);
      ThreadState b = Thread(200, 200, 7, 300);
      tracer.BeginBuffer(1);
      tracer.Enter(a);
      ASSERT_TRUE(tracer.Run(a, 150).ok());
      tracer.SwitchTo(b, SwitchStyle::kContextThenAddress);
      ASSERT_TRUE(tracer.Run(b, 150).ok());
      ASSERT_TRUE(tracer.TraceGap(b, 4).ok());
      ASSERT_TRUE(tracer.Run(b, 20).ok());
      tracer.SwitchTo(a2);
      ASSERT_TRUE(tracer.Run(a2, 90).ok());
      std::vector<uint8_t> trace = tracer.EndBuffer();

      std::vector<std::string> want, got;
      for (const TruthEvent& e : tracer.truth().events) {
        if (e.kind != TruthEvent::Kind::kRange) continue;
        want.push_back(Describe(e.start, e.end, e.instructions, e.context.pid, e.context.tid,
                                e.context.el, e.cs_timestamp));
      }
      std::vector<cs_etm::Packet> packets = DecodePackets(trace, formatted, every != 0);
      for (const cs_etm::Packet& p : packets) {
        if (p.kind != cs_etm::PacketKind::kRange) continue;
        got.push_back(Describe(p.start, p.end, p.instr_count, p.context.pid, p.context.tid,
                               p.context.el, p.cs_timestamp));
      }
      EXPECT_EQ(got, want) << "timestamp every " << every << " formatted " << formatted;
      // The packets in small batches (OpenCSD's WAIT/FLUSH path) are the same.
      std::vector<cs_etm::Packet> batched = DecodePackets(trace, formatted, every != 0, 3);
      ASSERT_EQ(batched.size(), packets.size());
      for (size_t i = 0; i < packets.size(); ++i) {
        EXPECT_EQ(batched[i].start, packets[i].start);
        EXPECT_EQ(batched[i].context, packets[i].context);
        EXPECT_EQ(batched[i].cs_timestamp, packets[i].cs_timestamp);
      }
      // Each thread switch is a context packet naming the new thread.
      int contexts = 0;
      for (const cs_etm::Packet& p : packets) contexts += p.kind == cs_etm::PacketKind::kContext;
      EXPECT_GE(contexts, 3);
    }
  }
}

TEST_F(PacketTruth, EncoderUsesEveryAtomFormat) {
  CpuTracer tracer(0, 0);
  ThreadState a = Thread(100, 100, 9, 50);
  tracer.BeginBuffer(1);
  tracer.Enter(a);
  ASSERT_TRUE(tracer.Run(a, 3000).ok());
  const uint64_t* formats = tracer.encoder().atom_formats();
  tracer.EndBuffer();
  for (int f : {1, 2, 3, 6}) EXPECT_GT(formats[f], 0u) << "atom format " << f;
}

// A-sync is 11 zeros and 0x80; Trace Info 01 00; a long address splits its
// low bits into two 7-bit fields; an F6 atom of 5 E then N is 0xe2.
TEST(EtmV4Encoder, PacketBytes) {
  EtmV4Encoder encoder;
  encoder.ASync();
  encoder.TraceInfo();
  encoder.LongAddress(0x0000123456789abcULL);
  for (int i = 0; i < 5; ++i) encoder.Atom(true);
  encoder.Atom(false);
  encoder.Timestamp(5);
  std::vector<uint8_t> bytes = encoder.Take();
  std::vector<uint8_t> want(11, 0x00);
  want.insert(want.end(), {0x80,
                           0x01,
                           0x00,
                           0x9d,
                           (0xbc >> 2) & 0x7f,
                           (0x9abc >> 9) & 0x7f,
                           0x78,
                           0x56,
                           0x34,
                           0x12,
                           0x00,
                           0x00,
                           0xe2,
                           0x02,
                           0x85,
                           0x80,
                           0x80,
                           0x80,
                           0x80,
                           0x80,
                           0x00});
  EXPECT_EQ(bytes, want);
}

// Frames: id bytes have bit 0 set, even data bytes keep their LSB in byte 15.
TEST(FrameFormatter, PacksIdsAndFlags) {
  FrameFormatter formatter;
  formatter.Add(0x10, {0x01, 0x02, 0x03});
  formatter.Add(0x12, {0xff});
  std::vector<uint8_t> frame = formatter.Finish();
  ASSERT_EQ(frame.size(), 16u);
  // 0: id 0x10 and byte 1 its 0x01; 2-3: data 0x02 (LSB 0 in byte 15) and
  // 0x03; 4: id 0x12 with byte 5 (0xff) for the new id; then id-0 padding.
  EXPECT_EQ(frame[0], 0x21);
  EXPECT_EQ(frame[1], 0x01);
  EXPECT_EQ(frame[2], 0x02);
  EXPECT_EQ(frame[3], 0x03);
  EXPECT_EQ(frame[4], 0x25);
  EXPECT_EQ(frame[5], 0xff);
  EXPECT_EQ(frame[6], 0x01);  // padding: id 0
}

// Trace cut at any point (a truncated buffer) decodes without an error
// status; the ranges before the cut are still the truth's.
TEST_F(PacketTruth, CutTraceDecodesItsPrefix) {
  CpuTracer tracer(0, 3);
  ThreadState a = Thread(100, 100, 15, 300), b = Thread(200, 200, 16, 300);
  tracer.BeginBuffer(1);
  tracer.Enter(a);
  ASSERT_TRUE(tracer.Run(a, 60).ok());
  tracer.SwitchTo(b);
  ASSERT_TRUE(tracer.Run(b, 60).ok());
  std::vector<uint8_t> trace = tracer.EndBuffer();
  std::vector<std::string> want;
  for (const TruthEvent& e : tracer.truth().events) {
    if (e.kind == TruthEvent::Kind::kRange) {
      want.push_back(Describe(e.start, e.end, e.instructions, e.context.pid, e.context.tid,
                              e.context.el, e.cs_timestamp));
    }
  }
  for (size_t cut = 1; cut < trace.size(); cut += 7) {
    std::vector<uint8_t> prefix(trace.begin(), trace.begin() + cut);
    std::vector<cs_etm::Packet> packets = DecodePackets(prefix, false, true);
    size_t i = 0;
    for (const cs_etm::Packet& p : packets) {
      if (p.kind != cs_etm::PacketKind::kRange) continue;
      ASSERT_LT(i, want.size());
      EXPECT_EQ(Describe(p.start, p.end, p.instr_count, p.context.pid, p.context.tid, p.context.el,
                         p.cs_timestamp),
                want[i])
          << "cut at " << cut;
      ++i;
    }
  }
}

}  // namespace
}  // namespace perftk::etm_gen

namespace perftk::etm_gen {
namespace {

// When one byte of the old id is left at an even position, the id change
// comes first and its flag in byte 15 says the next byte is still the old id's.
TEST(FrameFormatter, LastByteOfAnIdAfterItsChange) {
  FrameFormatter formatter;
  formatter.Add(0x10, {0x01, 0x02});
  formatter.Add(0x12, {0x04});
  std::vector<uint8_t> frame = formatter.Finish();
  ASSERT_EQ(frame.size(), 16u);
  EXPECT_EQ(frame[0], 0x21);  // id 0x10
  EXPECT_EQ(frame[1], 0x01);
  EXPECT_EQ(frame[2], 0x25);  // id 0x12, flag 1: byte 3 is still 0x10's
  EXPECT_EQ(frame[3], 0x02);
  EXPECT_EQ(frame[4], 0x01);  // id 0 (padding), flag 1: byte 5 is still 0x12's
  EXPECT_EQ(frame[5], 0x04);
  EXPECT_EQ(frame[15], 0x06);
}

}  // namespace
}  // namespace perftk::etm_gen
