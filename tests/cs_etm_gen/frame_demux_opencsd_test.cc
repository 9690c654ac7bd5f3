// FrameDemux with Etm4PacketParser against OpenCSD's frame deformatter and
// packet processors: the same packets, of the same trace ids, in the same
// order, on frames that interleave three sources in random stretches (with
// frame syncs that reset the decoders), and on the real recordings of
// simpleperf's tests.
#include <map>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "../testing/opencsd_packets.h"
#include "base/warnings.h"
#include "cs_etm/etm4_packets.h"
#include "cs_etm/frame_demux.h"
#include "cs_etm/trace_records.h"
#include "etm_encoder.h"
#include "gtest/gtest.h"
#include "perf/reader.h"
#include "test_sources.h"

namespace perftk::cs_etm {
namespace {

using opencsd_oracle::Comparable;
using opencsd_oracle::IdPacket;

using Sources = std::vector<std::pair<uint8_t, TraceSource>>;

class ParseRuns : public FrameDemuxSink {
 public:
  explicit ParseRuns(const Sources& sources) {
    for (const auto& [id, source] : sources) {
      parsers_[id] = std::make_unique<Etm4PacketParser>(Etm4Config::For(source));
    }
  }
  void Run(const FrameRun& run) override {
    auto it = parsers_.find(run.trace_id);
    if (it == parsers_.end()) return;
    std::vector<Etm4Packet> packets;
    it->second->Parse(run.bytes, run.index, packets);
    for (const Etm4Packet& packet : packets) out.push_back({run.trace_id, packet});
  }
  void Reset(uint64_t) override {
    for (auto& [id, parser] : parsers_) parser->Reset();
  }
  void Finish() {
    for (auto& [id, parser] : parsers_) {  // in id order, as OpenCSD ends them
      std::vector<Etm4Packet> packets;
      parser->Finish(packets);
      for (const Etm4Packet& packet : packets) out.push_back({id, packet});
    }
  }
  std::vector<IdPacket> out;

 private:
  std::map<uint8_t, std::unique_ptr<Etm4PacketParser>> parsers_;
};

// Empty if the two agree: the trace id of every packet, and each id's
// packets (as opencsd_oracle::Comparable sees them).
std::string Difference(const std::vector<IdPacket>& got, const std::vector<IdPacket>& want) {
  if (got.size() != want.size()) {
    return "perftk made " + std::to_string(got.size()) + " packets, OpenCSD " +
           std::to_string(want.size());
  }
  std::map<uint8_t, std::vector<Etm4Packet>> got_by_id;
  std::map<uint8_t, std::vector<Etm4Packet>> want_by_id;
  for (size_t i = 0; i < got.size(); ++i) {
    if (got[i].trace_id != want[i].trace_id) {
      return "packet " + std::to_string(i) + ": trace id " + std::to_string(got[i].trace_id) +
             ", OpenCSD " + std::to_string(want[i].trace_id);
    }
    got_by_id[got[i].trace_id].push_back(got[i].packet);
    want_by_id[want[i].trace_id].push_back(want[i].packet);
  }
  for (const auto& [id, packets] : got_by_id) {
    std::vector<std::string> a = Comparable(packets);
    std::vector<std::string> b = Comparable(want_by_id[id]);
    for (size_t i = 0; i < a.size(); ++i) {
      if (a[i] != b[i]) {
        return "trace id " + std::to_string(id) + ", its packet " + std::to_string(i) +
               ": perftk " + a[i] + ", OpenCSD " + b[i];
      }
    }
  }
  return "";
}

std::vector<IdPacket> Ours(const Sources& sources, std::span<const uint8_t> block) {
  ParseRuns runs(sources);
  EXPECT_TRUE(Demux(block, runs));
  runs.Finish();
  return runs.out;
}

std::vector<uint8_t> RandomStream(std::mt19937& random, size_t size) {
  etm_gen::EtmV4Encoder encoder;
  encoder.ASync();
  encoder.TraceInfo();
  std::vector<uint8_t> stream = encoder.Take();
  while (stream.size() < size) stream.push_back(static_cast<uint8_t>(random()));
  return stream;
}

TEST(FrameDemux, InterleavedSourcesAsOpenCsdReadsThem) {
  std::mt19937 random(31);
  const Sources sources = {
      {0x10, EtmV44Source(0)}, {0x12, EtmV44Source(1)}, {0x14, EtmV44Source(2)}};
  size_t packets = 0;
  for (int round = 0; round < 200; ++round) {
    std::vector<std::vector<uint8_t>> streams;
    for (size_t i = 0; i < sources.size(); ++i)
      streams.push_back(RandomStream(random, 200 + random() % 2000));
    // Stretches of random length from random sources; an id no source has.
    etm_gen::FrameFormatter formatter;
    std::vector<size_t> at(streams.size(), 0);
    for (bool more = true; more;) {
      more = false;
      const size_t i = random() % streams.size();
      const size_t n = std::min<size_t>(1 + random() % 40, streams[i].size() - at[i]);
      formatter.Add(sources[i].first, std::vector<uint8_t>(streams[i].begin() + at[i],
                                                           streams[i].begin() + at[i] + n));
      at[i] += n;
      if (random() % 16 == 0) formatter.Add(0x33, {1, 2, 3});
      for (size_t j = 0; j < streams.size(); ++j) more = more || at[j] < streams[j].size();
    }
    std::vector<uint8_t> block = formatter.Finish();
    // Now and then four frame syncs between frames: the decoders reset.
    if (round % 3 == 0) {
      const size_t frame = (random() % (block.size() / 16)) * 16;
      static const uint8_t kSyncs[16] = {0xff, 0xff, 0xff, 0x7f, 0xff, 0xff, 0xff, 0x7f,
                                         0xff, 0xff, 0xff, 0x7f, 0xff, 0xff, 0xff, 0x7f};
      block.insert(block.begin() + frame, kSyncs, kSyncs + 16);
    }
    std::vector<IdPacket> want = opencsd_oracle::OpenCsdFramePackets(sources, block);
    ASSERT_EQ(Difference(Ours(sources, block), want), "") << "round " << round;
    packets += want.size();
  }
  EXPECT_GT(packets, 50000u);
}

TEST(FrameDemux, BlocksOpenCsdWouldReadPastAreRefused) {
  std::vector<uint8_t> block(48, 0x21);
  EXPECT_TRUE(CanDemux(block));
  block.resize(40);
  EXPECT_FALSE(CanDemux(block));  // not whole frames
  // Two syncs, then a frame cut short.
  std::vector<uint8_t> odd = {0xff, 0xff, 0xff, 0x7f, 0xff, 0xff, 0xff, 0x7f};
  odd.insert(odd.end(), 24, 0x21);
  EXPECT_FALSE(CanDemux(odd));
  struct Nothing : FrameDemuxSink {
    void Run(const FrameRun&) override { ++calls; }
    void Reset(uint64_t) override { ++calls; }
    int calls = 0;
  } sink;
  EXPECT_FALSE(Demux(odd, sink));
  EXPECT_EQ(sink.calls, 0);
}

// The formatted blocks of simpleperf's real recordings.
TEST(FrameDemux, RealRecordingsAsOpenCsdReadsThem) {
  const std::string dir = std::string(PERFTK_ETM_DATA_DIR) + "/";
  int blocks = 0;
  for (const char* name :
       {"perf_etm.data", "perf_kernel.data", "perf_with_missing_aux_data.data"}) {
    auto reader = perf::PerfDataReader::Open(dir + name);
    ASSERT_TRUE(reader.ok()) << reader.status().message();
    base::WarningList warnings;
    TraceRecordReader records((*reader)->header().events, warnings);
    while (true) {
      auto record = (*reader)->Next();
      ASSERT_TRUE(record.ok()) << record.status();
      if (!*record) break;
      const uint32_t type = (*record)->type();
      if (type == PERF_RECORD_AUXTRACE_INFO) {
        ASSERT_TRUE(records.ReadAuxtraceInfo(**record).ok());
      }
      if (type == PERF_RECORD_AUX) {
        ASSERT_TRUE(records.ReadAux(**record).ok());
      }
      if (type != PERF_RECORD_AUXTRACE) continue;
      auto trace = records.ReadAuxtrace(**record);
      ASSERT_TRUE(trace.ok()) << trace.status();
      Sources sources;
      for (const TraceSource& source : records.setup()->info.sources) {
        if (source.protocol != TraceProtocol::kEtmV4) continue;
        sources.push_back({DecoderTraceId(source, records.setup()->trace_ids), source});
      }
      for (const TraceBlock& block : *trace) {
        if (!block.formatted) continue;
        std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(block.data.data()),
                                       block.data.size());
        if (!CanDemux(bytes)) continue;
        std::vector<IdPacket> want = opencsd_oracle::OpenCsdFramePackets(sources, bytes);
        EXPECT_EQ(Difference(Ours(sources, bytes), want), "") << name;
        ++blocks;
      }
    }
  }
  EXPECT_GT(blocks, 4);
}

}  // namespace
}  // namespace perftk::cs_etm
