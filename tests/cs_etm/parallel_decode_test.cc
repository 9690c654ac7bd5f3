// cs-etm-decode with --jobs N on many blocks: the output bytes, warnings and
// stats of 2 and 4 threads equal those of 1, in every format. The inputs are
// the real simpleperf recordings, with their AUX area records (ITRACE_START,
// AUX, AUXTRACE) replayed many times, each round on another CPU, and every
// few rounds the program's MMAP2/COMM records too (changes to the machine
// model between blocks).
#include <cstring>
#include <string>
#include <vector>

#include "base/warnings.h"
#include "cs_etm/decode_tool.h"
#include "cs_etm/metadata.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "perf/reader.h"
#include "perf/record.h"
#include "pipeline/tool_feed.h"

namespace perftk::cs_etm {
namespace {

const std::string kEtmDir = std::string(PERFTK_ETM_DATA_DIR) + "/";

class CaptureSink : public pipeline::RecordSink {
 public:
  absl::Status Emit(const perf::Record& record) override {
    const auto* data = reinterpret_cast<const char*>(record.bytes().data());
    bytes.append(data, record.bytes().size());
    ++records;
    return absl::OkStatus();
  }
  std::string bytes;
  size_t records = 0;
};

struct Recording {
  perf::Header header;
  std::vector<perf::OwnedRecord> records;
  std::vector<uint32_t> cpus;  // with trace metadata
};

Recording Read(const std::string& file) {
  Recording recording;
  auto reader = perf::PerfDataReader::Open(kEtmDir + file);
  EXPECT_TRUE(reader.ok()) << reader.status();
  if (!reader.ok()) return recording;
  recording.header = (*reader)->header();
  while (true) {
    auto record = (*reader)->Next();
    EXPECT_TRUE(record.ok()) << record.status();
    if (!record.ok() || !*record) break;
    recording.records.emplace_back(**record);
    if ((*record)->type() == PERF_RECORD_AUXTRACE_INFO) {
      auto view = perf::AuxtraceInfoRecord::From(**record);
      EXPECT_TRUE(view.ok());
      std::vector<uint64_t> priv = view->priv();
      auto info = ParseCsEtmInfo(priv);
      EXPECT_TRUE(info.ok()) << info.status();
      for (const TraceSource& source : info->sources) recording.cpus.push_back(source.cpu);
    }
  }
  return recording;
}

// Rewrites the CPU of an AUX area record (AUXTRACE's cpu field, or the
// sample_id trailer's, which ends these recordings' records).
perf::OwnedRecord OnCpu(const perf::OwnedRecord& owned, uint32_t cpu) {
  perf::OwnedRecord copy = owned;
  std::vector<std::byte>& bytes = copy.mutable_bytes();
  const size_t at = copy.view().type() == PERF_RECORD_AUXTRACE ? 40 : bytes.size() - 8;
  std::memcpy(bytes.data() + at, &cpu, sizeof(cpu));
  return copy;
}

// The recording, then `rounds` replays of its trace, round r on the r-th CPU
// with metadata; every `model_every` rounds the round replays the machine
// records after the first ITRACE_START too.
std::vector<perf::OwnedRecord> Replayed(const Recording& recording, int rounds, int model_every) {
  std::vector<perf::OwnedRecord> out = recording.records;
  size_t first_trace = 0;
  while (first_trace < out.size() && out[first_trace].view().type() != PERF_RECORD_ITRACE_START) {
    ++first_trace;
  }
  for (int round = 0; round < rounds; ++round) {
    const uint32_t cpu = recording.cpus[round % recording.cpus.size()];
    const bool with_model = model_every > 0 && round % model_every == 0;
    for (size_t i = first_trace; i < recording.records.size(); ++i) {
      const uint32_t type = recording.records[i].view().type();
      const bool trace = type == PERF_RECORD_ITRACE_START || type == PERF_RECORD_AUX ||
                         type == PERF_RECORD_AUXTRACE;
      if (trace) {
        out.push_back(OnCpu(recording.records[i], cpu));
      } else if (with_model) {
        out.push_back(recording.records[i]);
      }
    }
  }
  return out;
}

struct Outcome {
  absl::Status status;
  std::string bytes;  // perf: the records written; else the text
  size_t records = 0;
  std::vector<std::string> warnings;
  DecodeStats stats;
};

Outcome DecodeWith(const Recording& recording, const std::vector<perf::OwnedRecord>& records,
                   OutputFormat format, const std::string& itrace, int jobs) {
  Outcome outcome;
  DecodeOptions options;
  options.itrace = *ParseItrace(itrace);
  options.format = format;
  options.symfs = kEtmDir;
  options.jobs = jobs;
  perftk::base::WarningList tool_warnings;
  CsEtmDecodeTool tool(options, tool_warnings);
  pipeline::ToolFeed feed(tool);
  perf::Header header = recording.header;
  if (outcome.status = feed.Begin(header); !outcome.status.ok()) return outcome;
  CaptureSink sink;
  for (const perf::OwnedRecord& record : records) {
    if (outcome.status = feed.Process(record.view(), sink); !outcome.status.ok()) return outcome;
  }
  perf::FeatureSet features;
  outcome.status = feed.End(sink, features);
  outcome.bytes = format == OutputFormat::kPerf ? sink.bytes : tool.text();
  outcome.records = sink.records;
  outcome.warnings = tool_warnings.lines();
  outcome.stats = tool.stats();
  return outcome;
}

void ExpectSame(const Outcome& a, const Outcome& b, int jobs) {
  EXPECT_EQ(a.status, b.status) << "jobs " << jobs;
  EXPECT_TRUE(a.bytes == b.bytes) << "jobs " << jobs << ": output differs (" << a.bytes.size()
                                  << " vs " << b.bytes.size() << " bytes)";
  EXPECT_EQ(a.records, b.records) << "jobs " << jobs;
  EXPECT_EQ(a.warnings, b.warnings) << "jobs " << jobs;
  EXPECT_EQ(a.stats.blocks, b.stats.blocks);
  EXPECT_EQ(a.stats.trace_bytes, b.stats.trace_bytes);
  EXPECT_EQ(a.stats.packets, b.stats.packets);
  EXPECT_EQ(a.stats.samples, b.stats.samples);
  EXPECT_EQ(a.stats.instruction_samples, b.stats.instruction_samples);
  EXPECT_EQ(a.stats.branch_samples, b.stats.branch_samples);
  EXPECT_EQ(a.stats.decoder_waits, b.stats.decoder_waits);
}

struct Case {
  const char* file;
  OutputFormat format;
  const char* itrace;
};

class ParallelDecode : public ::testing::TestWithParam<Case> {};

TEST_P(ParallelDecode, ManyBlocksGiveTheBytesOfOneThread) {
  const Case& c = GetParam();
  Recording recording = Read(c.file);
  ASSERT_FALSE(recording.cpus.empty());
  constexpr int kRounds = 40;
  std::vector<perf::OwnedRecord> records = Replayed(recording, kRounds, /*model_every=*/7);
  Outcome once = DecodeWith(recording, recording.records, c.format, c.itrace, 1);
  ASSERT_TRUE(once.status.ok()) << once.status;
  Outcome serial = DecodeWith(recording, records, c.format, c.itrace, 1);
  ASSERT_TRUE(serial.status.ok()) << serial.status;
  // Every round decodes like the recording itself. Without l, the count of
  // instructions to the next sample carries over from block to block.
  EXPECT_EQ(serial.stats.blocks, once.stats.blocks * (kRounds + 1));
  EXPECT_EQ(serial.stats.packets, once.stats.packets * (kRounds + 1));
  if (std::string(c.itrace).find('l') != std::string::npos) {
    EXPECT_EQ(serial.stats.samples, once.stats.samples * (kRounds + 1));
  } else {
    EXPECT_GE(serial.stats.samples, once.stats.samples * (kRounds + 1));
  }
  EXPECT_GT(once.stats.packets, 0u);
  for (int jobs : {2, 4})
    ExpectSame(serial, DecodeWith(recording, records, c.format, c.itrace, jobs), jobs);
}

TEST_P(ParallelDecode, RealRecordingGivesTheBytesOfOneThread) {
  const Case& c = GetParam();
  Recording recording = Read(c.file);
  Outcome serial = DecodeWith(recording, recording.records, c.format, c.itrace, 1);
  ASSERT_TRUE(serial.status.ok()) << serial.status;
  for (int jobs : {2, 4}) {
    ExpectSame(serial, DecodeWith(recording, recording.records, c.format, c.itrace, jobs), jobs);
  }
}

INSTANTIATE_TEST_SUITE_P(
    AllFormats, ParallelDecode,
    ::testing::Values(Case{"perf_etm.data", OutputFormat::kPerf, "i100il64"},
                      Case{"perf_etm.data", OutputFormat::kPerf, "b"},
                      Case{"perf_etm.data", OutputFormat::kScript, "i100il64"},
                      Case{"perf_etm.data", OutputFormat::kScript, "i37"},
                      Case{"perf_etm.data", OutputFormat::kAutoFdo, "il64"},
                      Case{"perf_etm.data", OutputFormat::kBolt, "il64"},
                      Case{"perf_with_unformatted_trace.data", OutputFormat::kPerf, "i100il64"},
                      Case{"perf_with_unformatted_trace.data", OutputFormat::kScript, "i100il64b"},
                      Case{"perf_with_unformatted_trace.data", OutputFormat::kPerf, "i37"},
                      Case{"perf_with_unformatted_trace.data", OutputFormat::kAutoFdo, "il64"},
                      Case{"perf_with_unformatted_trace.data", OutputFormat::kBolt, "il64"}));

// The recording without AUX data decodes to nothing, with the same warning.
TEST(ParallelDecode, MissingAuxDataWarnsAlike) {
  Recording recording = Read("perf_with_missing_aux_data.data");
  for (OutputFormat format : {OutputFormat::kPerf, OutputFormat::kScript, OutputFormat::kAutoFdo}) {
    Outcome serial = DecodeWith(recording, recording.records, format, "il64", 1);
    ASSERT_TRUE(serial.status.ok()) << serial.status;
    ASSERT_FALSE(serial.warnings.empty());
    for (int jobs : {2, 4}) {
      ExpectSame(serial, DecodeWith(recording, recording.records, format, "il64", jobs), jobs);
    }
  }
}

}  // namespace
}  // namespace perftk::cs_etm
