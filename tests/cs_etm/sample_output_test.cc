// SampleEncoder on the header of the real simpleperf recording perf_etm.data
// (one cs_etm event, sample_type IP|TID|TIME|ID|CPU|PERIOD: ids without
// IDENTIFIER), and its script lines against perf 6.1's own output for that
// recording (tests/data/cs_etm_perf61).
#include "cs_etm/sample_output.h"

#include <fstream>
#include <string>
#include <vector>

#include "cs_etm/itrace.h"
#include "etm_recording.h"
#include "gtest/gtest.h"
#include "perf/reader.h"
#include "perf/record.h"
#include "perf/sample.h"

namespace perftk::cs_etm {
namespace {

perf::Header EtmHeader() {
  auto reader = perf::PerfDataReader::Open(kEtmDir + "perf_etm.data");
  EXPECT_TRUE(reader.ok()) << reader.status();
  return reader.ok() ? (*reader)->header() : perf::Header();
}

SynthesizedSample UserSample(SynthesizedSample::Kind kind) {
  SynthesizedSample sample;
  sample.kind = kind;
  sample.context = {17235, 17236, 0};
  sample.cpu = 7;
  sample.time = 1118687117325;
  sample.ip = 0x582b2b10ec;
  sample.addr = kind == SynthesizedSample::Kind::kBranch ? 0x582b2b10e0 : 0;
  sample.period = kind == SynthesizedSample::Kind::kBranch ? 1 : 100;
  if (kind == SynthesizedSample::Kind::kInstruction) {
    sample.branches = {{0x582b2b1050, 0x582b2b10e0, kBranchFlagPredicted},
                       {0x582b2b1004, 0x582b2b100c, kBranchFlagPredicted}};
  }
  return sample;
}

// The records of `samples`, one by one (SampleEncoder's kPerf output).
std::vector<std::vector<std::byte>> RecordsOf(const EncodedSamples& samples) {
  std::vector<std::vector<std::byte>> records;
  const std::string all = Contents(samples);
  absl::Status read = perf::ForEachRecordIn(
      base::AsBytes(all.data(), all.size()), [&records](const perf::Record& record) {
        records.emplace_back(record.bytes().begin(), record.bytes().end());
        return absl::OkStatus();
      });
  EXPECT_TRUE(read.ok()) << read;
  return records;
}

// The event perf finds for `record` in `header`, and the sample decoded with it.
struct Found {
  size_t event = 0;
  perf::Sample sample;
};

Found FindSample(const perf::Header& header, const std::vector<std::byte>& bytes) {
  Found found;
  perf::Record record(bytes, 0);
  absl::StatusOr<size_t> index = header.events.IndexOf(record);
  EXPECT_TRUE(index.ok()) << index.status();
  if (!index.ok()) return found;
  found.event = *index;
  absl::StatusOr<perf::Sample> sample =
      perf::DecodeSample(header.events.format(*index), record.body());
  EXPECT_TRUE(sample.ok()) << sample.status();
  if (sample.ok()) found.sample = *sample;
  return found;
}

TEST(SampleEncoder, PerfInstructionSamplesAreFoundUnderTheirOwnEvent) {
  perf::Header header = EtmHeader();
  ASSERT_EQ(header.events.size(), 1u);
  header.features[HEADER_AUXTRACE] = {};
  absl::StatusOr<SampleEncoder> encoder =
      SampleEncoder::Create(OutputFormat::kPerf, *ParseItrace("i100il64"), header);
  ASSERT_TRUE(encoder.ok()) << encoder.status();
  // i, l: the input has IP|TID|TIME already, so its events stay as they are.
  EXPECT_FALSE(encoder->changed_input_attrs());
  ASSERT_EQ(header.events.size(), 2u);
  const perf::EventAttr& instructions = header.events.attrs()[1];
  EXPECT_EQ(instructions.type(), uint32_t{PERF_TYPE_HARDWARE});
  EXPECT_EQ(instructions.config(), 1u);  // PERF_COUNT_HW_INSTRUCTIONS
  EXPECT_TRUE(instructions.sample_type() & PERF_SAMPLE_BRANCH_STACK);
  EXPECT_EQ(instructions.size(), header.events.attrs()[0].size());
  EXPECT_GT(instructions.ids().front(), header.events.attrs()[0].ids().back());
  EXPECT_TRUE(header.features.count(HEADER_BRANCH_STACK));
  EXPECT_FALSE(header.features.count(HEADER_AUXTRACE));

  EncodedSamples out;
  ASSERT_TRUE(encoder->Encode(UserSample(SynthesizedSample::Kind::kInstruction), out).ok());
  const std::vector<std::vector<std::byte>> records = RecordsOf(out);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(out.bytes(), records[0].size());
  EXPECT_EQ(perf::Record(records[0], 0).cpumode(), PERF_RECORD_MISC_USER);
  const Found found = FindSample(header, records[0]);
  EXPECT_EQ(found.event, 1u);
  EXPECT_EQ(found.sample.ip, 0x582b2b10ecu);
  EXPECT_EQ(found.sample.pid, 17235u);
  EXPECT_EQ(found.sample.tid, 17236u);
  EXPECT_EQ(found.sample.cpu, 7u);
  EXPECT_EQ(found.sample.period, 100u);
  ASSERT_EQ(found.sample.branch_stack.entries.size(), 2u);
  EXPECT_EQ(found.sample.branch_stack.entries[1].to, 0x582b2b100cu);

  // No b asked: a branch sample has no event and writes nothing.
  ASSERT_TRUE(encoder->Encode(UserSample(SynthesizedSample::Kind::kBranch), out).ok());
  EXPECT_EQ(out.count(), 1u);
}

TEST(SampleEncoder, BranchSamplesMoveTheInputsIdsToWhereTheNewEventsHaveThem) {
  perf::Header header = EtmHeader();
  const uint64_t input_type = header.events.attrs()[0].sample_type();
  ASSERT_FALSE(input_type & PERF_SAMPLE_IDENTIFIER);
  ASSERT_FALSE(input_type & PERF_SAMPLE_ADDR);
  absl::StatusOr<SampleEncoder> encoder =
      SampleEncoder::Create(OutputFormat::kPerf, *ParseItrace("b"), header);
  ASSERT_TRUE(encoder.ok()) << encoder.status();
  // b adds ADDR before the id: the input's event gets it too.
  EXPECT_TRUE(encoder->changed_input_attrs());
  EXPECT_EQ(header.events.attrs()[0].sample_type(), input_type | PERF_SAMPLE_ADDR);
  ASSERT_EQ(header.events.size(), 2u);
  EXPECT_EQ(header.events.attrs()[1].config(), 4u);  // PERF_COUNT_HW_BRANCH_INSTRUCTIONS

  EncodedSamples out;
  SynthesizedSample kernel = UserSample(SynthesizedSample::Kind::kBranch);
  kernel.context.el = 1;
  ASSERT_TRUE(encoder->Encode(kernel, out).ok());
  const std::vector<std::vector<std::byte>> records = RecordsOf(out);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(perf::Record(records[0], 0).cpumode(), PERF_RECORD_MISC_KERNEL);
  const Found found = FindSample(header, records[0]);
  EXPECT_EQ(found.event, 1u);
  EXPECT_EQ(found.sample.addr, 0x582b2b10e0u);
}

TEST(SampleEncoder, ScriptLinesAreThoseOfPerf61) {
  std::ifstream in(std::string(PERFTK_SOURCE_DIR) +
                   "/tests/data/cs_etm_perf61/perf_etm.il16.script");
  std::string first;
  ASSERT_TRUE(std::getline(in, first));
  perf::Header header;  // kScript adds no events
  absl::StatusOr<SampleEncoder> encoder =
      SampleEncoder::Create(OutputFormat::kScript, *ParseItrace("il16"), header);
  ASSERT_TRUE(encoder.ok()) << encoder.status();
  SynthesizedSample sample = UserSample(SynthesizedSample::Kind::kInstruction);
  sample.context.tid = 17235;
  EncodedSamples out;
  ASSERT_TRUE(encoder->Encode(sample, out).ok());
  EXPECT_EQ(out.count(), 1u);
  EXPECT_EQ(Contents(out), first + "\n");
}

TEST(SampleEncoder, PerfOutputNeedsAnEvent) {
  perf::Header header;
  EXPECT_FALSE(SampleEncoder::Create(OutputFormat::kPerf, *ParseItrace("il64"), header).ok());
  EXPECT_TRUE(SampleEncoder::Create(OutputFormat::kAutoFdo, *ParseItrace("il64"), header).ok());
}

}  // namespace
}  // namespace perftk::cs_etm
