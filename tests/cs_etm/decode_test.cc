// cs-etm-decode on the real simpleperf recordings, against the facts their
// README gives (simpleperf's own AutoFDO output, perf 6.1's sample counts).
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "base/warnings.h"
#include "cs_etm/decode_tool.h"
#include "cs_etm/decoder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "perf/reader.h"
#include "perf/sample.h"
#include "pipeline/tool_feed.h"

namespace perftk::cs_etm {
namespace {

using ::testing::HasSubstr;

const std::string kEtmDir = std::string(PERFTK_ETM_DATA_DIR) + "/";
constexpr uint64_t kEtmBase = 0x582b2b0000;  // etm_test_loop's load address in perf_etm.data

class CaptureSink : public pipeline::RecordSink {
 public:
  absl::Status Emit(const perf::Record& record) override {
    records.emplace_back(record);
    return absl::OkStatus();
  }
  std::vector<perf::OwnedRecord> records;
};

struct DecodeRun {
  absl::Status status;
  std::string text;
  std::vector<std::string> warnings;
  std::vector<perf::Sample> instruction_samples;
  std::vector<perf::Sample> branch_samples;
  std::vector<uint32_t> passed_types;  // of non-sample records written
  uint64_t waits = 0;
};

DecodeRun Decode(const std::string& file, const std::string& itrace, OutputFormat format,
                 const std::string& symfs = kEtmDir, size_t batch = TraceDecoder::kDefaultBatchSize,
                 DecoderChoice decoder = DecoderChoice::kFast) {
  DecodeRun run;
  DecodeOptions options;
  options.packet_batch = batch;
  options.decoder = decoder;
  options.itrace = *ParseItrace(itrace);
  options.format = format;
  options.symfs = symfs;
  perftk::base::WarningList tool_warnings;
  CsEtmDecodeTool tool(options, tool_warnings);
  pipeline::ToolFeed feed(tool);
  auto reader = perf::PerfDataReader::Open(kEtmDir + file);
  if (!reader.ok()) {
    run.status = reader.status();
    return run;
  }
  perf::Header header = (*reader)->header();
  if (run.status = feed.Begin(header); !run.status.ok()) return run;
  CaptureSink sink;
  while (true) {
    auto record = (*reader)->Next();
    if (!record.ok()) {
      run.status = record.status();
      return run;
    }
    if (!*record) break;
    if (run.status = feed.Process(**record, sink); !run.status.ok()) return run;
  }
  perf::FeatureSet features;
  run.status = feed.End(sink, features);
  run.text = tool.text();
  run.warnings = tool_warnings.lines();
  run.waits = tool.stats().decoder_waits;
  for (const perf::OwnedRecord& owned : sink.records) {
    perf::Record record = owned.view();
    if (record.type() != PERF_RECORD_SAMPLE) {
      run.passed_types.push_back(record.type());
      continue;
    }
    auto index = header.events.IndexOf(record);
    EXPECT_TRUE(index.ok());
    auto sample = perf::DecodeSample(header.events.format(*index), record.body());
    EXPECT_TRUE(sample.ok()) << sample.status();
    bool instructions = header.events.attrs()[*index].config() == 1;
    (instructions ? run.instruction_samples : run.branch_samples).push_back(*sample);
  }
  return run;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// AutoFDO text as sets of "range:count" and "branch:count" lines per binary.
std::multiset<std::string> AutoFdoLines(const std::string& text) {
  std::multiset<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.find(':') != std::string::npos || line.rfind("//", 0) == 0) lines.insert(line);
  }
  return lines;
}

TEST(CsEtmDecode, AutoFdoEqualsSimpleperfInject) {
  DecodeRun run = Decode("perf_etm.data", "il64", OutputFormat::kAutoFdo);
  ASSERT_TRUE(run.status.ok()) << run.status;
  std::string expected = ReadFile(kEtmDir + "perf_inject.data");
  ASSERT_FALSE(expected.empty());
  EXPECT_EQ(AutoFdoLines(run.text), AutoFdoLines(expected)) << run.text;
  EXPECT_THAT(run.text, HasSubstr("106c->1074:100\n"));
  EXPECT_THAT(run.text, HasSubstr("1080->105c:100\n"));
}

TEST(CsEtmDecode, BranchSamplesHaveTheHotLoopEdges) {
  DecodeRun run = Decode("perf_etm.data", "b", OutputFormat::kPerf);
  ASSERT_TRUE(run.status.ok()) << run.status;
  std::map<std::pair<uint64_t, uint64_t>, int> edges;
  for (const perf::Sample& s : run.branch_samples) {
    ++edges[{s.ip, s.addr}];
    EXPECT_EQ(s.pid, 17235u);
    EXPECT_EQ(s.tid, 17235u);
    EXPECT_EQ(s.cpu, 7u);
  }
  EXPECT_EQ((edges[{kEtmBase + 0x106c, kEtmBase + 0x1074}]), 100);
  EXPECT_EQ((edges[{kEtmBase + 0x1080, kEtmBase + 0x105c}]), 100);
  EXPECT_EQ((edges[{kEtmBase + 0x1004, kEtmBase + 0x100c}]), 1);
  EXPECT_EQ((edges[{kEtmBase + 0x10a0, kEtmBase + 0x1054}]), 1);
  EXPECT_EQ((edges[{0, kEtmBase + 0x1000}]), 1);  // trace on
  EXPECT_TRUE(run.instruction_samples.empty());
}

TEST(CsEtmDecode, Il64GivesPerfsSampleCount) {
  DecodeRun run = Decode("perf_etm.data", "il64", OutputFormat::kPerf);
  ASSERT_TRUE(run.status.ok()) << run.status;
  // The trace is shorter than the period: only the flush samples at the
  // discontinuity after the first trace stretch and at the end.
  ASSERT_EQ(run.instruction_samples.size(), 2u);
  const perf::Sample& last = run.instruction_samples.back();
  ASSERT_EQ(last.branch_stack.entries.size(), 64u);
  // Newest first: the trace ends leaving the loop's last round.
  EXPECT_EQ(last.branch_stack.entries[63].from % 0x10000, 0x106cu);
  for (const perf::Sample& s : run.instruction_samples) {
    EXPECT_EQ(s.pid, 17235u);
    EXPECT_LE(s.branch_stack.entries.size(), 64u);
    for (const perf::BranchEntry& e : s.branch_stack.entries) {
      EXPECT_GE(e.from, kEtmBase);
      EXPECT_LT(e.from, kEtmBase + 0x2000);
      EXPECT_EQ(e.flags, kBranchFlagPredicted);
    }
  }
  // AUX area records are gone from the output, the rest passed through.
  for (uint32_t type : run.passed_types) {
    EXPECT_NE(type, PERF_RECORD_AUXTRACE);
    EXPECT_NE(type, PERF_RECORD_AUXTRACE_INFO);
    EXPECT_NE(type, PERF_RECORD_AUX);
    EXPECT_NE(type, PERF_RECORD_ITRACE_START);
  }
  EXPECT_FALSE(run.passed_types.empty());
}

TEST(CsEtmDecode, I100Il64GivesPerfsSampleCount) {
  DecodeRun run = Decode("perf_etm.data", "i100il64", OutputFormat::kPerf);
  ASSERT_TRUE(run.status.ok()) << run.status;
  ASSERT_EQ(run.instruction_samples.size(), 11u);
  int full = 0;
  uint64_t instructions = 0;
  for (const perf::Sample& s : run.instruction_samples) {
    full += s.branch_stack.entries.size() == 64;
    instructions += s.period;
  }
  EXPECT_EQ(full, 8);
  // Same instruction total as the flush-only run.
  DecodeRun flush_only = Decode("perf_etm.data", "il64", OutputFormat::kPerf);
  uint64_t total = 0;
  for (const perf::Sample& s : flush_only.instruction_samples) total += s.period;
  EXPECT_EQ(instructions, total);
  EXPECT_GT(total, 900u);
}

TEST(CsEtmDecode, ScriptFormatMatchesSamples) {
  DecodeRun run = Decode("perf_etm.data", "i100il64", OutputFormat::kScript);
  ASSERT_TRUE(run.status.ok()) << run.status;
  std::istringstream in(run.text);
  std::string line;
  int lines = 0;
  while (std::getline(in, line)) {
    ++lines;
    EXPECT_EQ(line.rfind("17235/17235        582b2b", 0), 0u) << line;
  }
  EXPECT_EQ(lines, 11);
}

// Handing packets over in small batches goes through OpenCSD's WAIT/FLUSH
// protocol many times; the result must not change.
// OpenCSD's path: its decoder hands packets over in batches, waiting.
TEST(CsEtmDecode, WaitFlushProtocolKeepsTheOutput) {
  for (const char* file : {"perf_etm.data", "perf_with_unformatted_trace.data"}) {
    DecodeRun whole = Decode(file, "i100il64", OutputFormat::kScript, kEtmDir,
                             TraceDecoder::kDefaultBatchSize, DecoderChoice::kOpenCsd);
    ASSERT_TRUE(whole.status.ok()) << whole.status;
    EXPECT_EQ(whole.waits, 0u);
    for (size_t batch : {1, 7}) {
      DecodeRun small =
          Decode(file, "i100il64", OutputFormat::kScript, kEtmDir, batch, DecoderChoice::kOpenCsd);
      ASSERT_TRUE(small.status.ok()) << small.status;
      EXPECT_GT(small.waits, 20u);
      EXPECT_EQ(small.text, whole.text) << file << " batch " << batch;
    }
    DecodeRun profile =
        Decode(file, "il64", OutputFormat::kAutoFdo, kEtmDir, 1, DecoderChoice::kOpenCsd);
    EXPECT_EQ(AutoFdoLines(profile.text), AutoFdoLines(ReadFile(kEtmDir + "perf_inject.data")));
  }
}

TEST(CsEtmDecode, EteRawTraceAttributesTid319FromVmid) {
  DecodeRun run = Decode("perf_with_unformatted_trace.data", "i100il64b", OutputFormat::kPerf);
  ASSERT_TRUE(run.status.ok()) << run.status;
  ASSERT_FALSE(run.instruction_samples.empty());
  for (const perf::Sample& s : run.instruction_samples) {
    EXPECT_EQ(s.tid, 319u);
    EXPECT_EQ(s.pid, 319u);
  }
  std::map<std::pair<uint64_t, uint64_t>, int> edges;
  constexpr uint64_t kBase = 0x629b293000;
  for (const perf::Sample& s : run.branch_samples) ++edges[{s.ip - kBase, s.addr - kBase}];
  EXPECT_EQ((edges[{0x6c, 0x74}]), 100);
  EXPECT_EQ((edges[{0x80, 0x5c}]), 100);
  DecodeRun profile = Decode("perf_with_unformatted_trace.data", "il64", OutputFormat::kAutoFdo);
  EXPECT_EQ(AutoFdoLines(profile.text), AutoFdoLines(ReadFile(kEtmDir + "perf_inject.data")));
}

TEST(CsEtmDecode, MissingAuxDataIsAWarningAndNoSamples) {
  DecodeRun run = Decode("perf_with_missing_aux_data.data", "il64", OutputFormat::kPerf);
  ASSERT_TRUE(run.status.ok()) << run.status;
  EXPECT_TRUE(run.instruction_samples.empty());
  ASSERT_FALSE(run.warnings.empty());
  EXPECT_THAT(run.warnings.back(), HasSubstr("have no AUXTRACE data"));
}

TEST(CsEtmDecode, MissingBinaryIsNamedAndSkipped) {
  DecodeRun run = Decode("perf_etm.data", "il64", OutputFormat::kAutoFdo, "/nonexistent-symfs");
  ASSERT_TRUE(run.status.ok()) << run.status;
  EXPECT_TRUE(run.text.empty()) << run.text;
  bool named = false;
  for (const std::string& w : run.warnings) {
    named |= w.find("/data/local/tmp/etm_test_loop") != std::string::npos;
  }
  EXPECT_TRUE(named);
}

// The decoder entry survives garbage: random bytes as formatted and raw trace.
class NoMemory : public DecodeEnvironment {
 public:
  int32_t PidOf(int32_t tid) override { return tid; }
  uint32_t ReadCode(const PacketContext&, uint64_t, uint32_t, uint8_t*) override { return 0; }
};

class CountingSink : public PacketSink {
 public:
  absl::Status Consume(std::span<const Packet> packets) override {
    count += packets.size();
    return absl::OkStatus();
  }
  size_t count = 0;
};

TEST(CsEtmDecode, GarbageTraceDoesNotCrash) {
  CsEtmInfo info;
  info.version = 1;
  TraceSource etm;
  etm.protocol = TraceProtocol::kEtmV4;
  etm.cpu = 0;
  etm.trcconfigr = 0x40;
  etm.trctraceidr = 0x10;
  etm.trcidr0 = 0x28000ea1;
  etm.trcidr1 = 0x4100f422;
  etm.trcidr2 = 0x20001088;
  info.sources.push_back(etm);
  TraceSource ete = etm;
  ete.protocol = TraceProtocol::kEte;
  ete.cpu = 1;
  ete.trctraceidr = 0x12;
  ete.trcconfigr = 0x8080;
  ete.trcidr1 = 0x4100fff0;
  ete.trcdevarch = 0x47715a13;
  info.sources.push_back(ete);
  NoMemory memory;
  std::mt19937 random(5);
  for (bool formatted : {true, false}) {
    auto decoder = TraceDecoder::Create(info, {}, formatted, 1, memory);
    ASSERT_TRUE(decoder.ok()) << decoder.status();
    for (int round = 0; round < 20; ++round) {
      std::vector<std::byte> bytes(4096 + round * 37);
      for (std::byte& b : bytes) b = std::byte(random() & 0xff);
      TraceBlock block;
      block.cpu = 1;
      block.formatted = formatted;
      block.data = bytes;
      CountingSink sink;
      absl::Status status = (*decoder)->Decode(block, sink);
      if (!status.ok()) {
        EXPECT_THAT(std::string(status.message()), HasSubstr("cpu 1"));
      }
    }
  }
}

}  // namespace
}  // namespace perftk::cs_etm
