// TraceRecordReader on the records of the real simpleperf recording
// perf_etm.data (perf report -D: AUXTRACE_INFO, ITRACE_START pid/tid 17235
// on CPU 7, four AUX records of 0x50, 0x50, 0x50 and 0x90 bytes, then one
// AUXTRACE of 0x180 bytes at offset 0x26a8), with SWITCH and
// AUX_OUTPUT_HW_ID records made with that recording's sample_id layout.
#include "cs_etm/trace_records.h"

#include <cstring>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/warnings.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "perf/reader.h"
#include "perf/record.h"
#include "perf/sample.h"

namespace perftk::cs_etm {
namespace {

using ::testing::HasSubstr;

const std::string kEtmDir = std::string(PERFTK_ETM_DATA_DIR) + "/";
constexpr uint32_t kCpu = 7;

struct Recording {
  perf::Header header;
  std::vector<perf::OwnedRecord> records;
};

Recording ReadEtm() {
  Recording recording;
  auto reader = perf::PerfDataReader::Open(kEtmDir + "perf_etm.data");
  EXPECT_TRUE(reader.ok()) << reader.status();
  if (!reader.ok()) return recording;
  recording.header = (*reader)->header();
  while (true) {
    absl::StatusOr<std::optional<perf::Record>> record = (*reader)->Next();
    EXPECT_TRUE(record.ok()) << record.status();
    if (!record.ok() || !*record) break;
    recording.records.emplace_back(**record);
  }
  return recording;
}

const perf::OwnedRecord* FirstOf(const Recording& recording, uint32_t type) {
  for (const perf::OwnedRecord& record : recording.records) {
    if (record.view().type() == type) return &record;
  }
  return nullptr;
}

// A record of `type` with `body` and the recording's sample_id trailer for
// `pid`/`tid` on kCpu (`with_id` false: no trailer).
perf::OwnedRecord MakeRecord(const Recording& recording, uint32_t type, uint16_t misc,
                             std::vector<std::byte> body, int32_t pid, int32_t tid,
                             bool with_id = true) {
  if (with_id) {
    perf::SampleId id;
    id.pid = static_cast<uint32_t>(pid);
    id.tid = static_cast<uint32_t>(tid);
    id.time = 1118687000000;
    id.id = recording.header.events.attrs()[0].ids().front();
    id.cpu = kCpu;
    perf::EncodeSampleId(recording.header.events.format(0), id, body);
  }
  absl::StatusOr<std::vector<std::byte>> bytes = perf::MakeRecordBytes(type, misc, body);
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  return perf::OwnedRecord(bytes.ok() ? *bytes : std::vector<std::byte>(), {}, 0x1000);
}

std::vector<std::byte> Words(std::initializer_list<uint32_t> words) {
  std::vector<std::byte> bytes(words.size() * 4);
  size_t at = 0;
  for (uint32_t word : words) {
    std::memcpy(bytes.data() + at, &word, 4);
    at += 4;
  }
  return bytes;
}

perf::OwnedRecord HwId(const Recording& recording, uint64_t hw_id, bool with_id = true) {
  std::vector<std::byte> body(8);
  std::memcpy(body.data(), &hw_id, 8);
  return MakeRecord(recording, PERF_RECORD_AUX_OUTPUT_HW_ID, 0, body, -1, -1, with_id);
}

// Reads every record of `recording`, and `switches_before_first_aux` just
// before its first AUX record; returns the blocks.
std::vector<TraceBlock> ReadAll(
    TraceRecordReader& reader, const Recording& recording,
    const std::vector<perf::OwnedRecord>& switches_before_first_aux = {}) {
  std::vector<TraceBlock> blocks;
  bool inserted = false;
  for (const perf::OwnedRecord& owned : recording.records) {
    const perf::Record record = owned.view();
    if (record.type() == PERF_RECORD_AUX && !inserted) {
      inserted = true;
      for (const perf::OwnedRecord& extra : switches_before_first_aux)
        reader.ReadSwitch(extra.view());
    }
    switch (record.type()) {
      case PERF_RECORD_AUXTRACE_INFO:
        EXPECT_TRUE(reader.ReadAuxtraceInfo(record).ok());
        break;
      case PERF_RECORD_ITRACE_START:
        reader.ReadItraceStart(record);
        break;
      case PERF_RECORD_AUX:
        EXPECT_TRUE(reader.ReadAux(record).ok());
        break;
      case PERF_RECORD_AUXTRACE: {
        absl::StatusOr<std::vector<TraceBlock>> more = reader.ReadAuxtrace(record);
        EXPECT_TRUE(more.ok()) << more.status();
        // The blocks point into the record, which `recording` keeps.
        if (more.ok()) blocks.insert(blocks.end(), more->begin(), more->end());
        break;
      }
      default:
        break;
    }
  }
  return blocks;
}

TEST(TraceRecordReader, CutsTheTraceAtItsAuxRecordsWithTheThreadItraceStartNamed) {
  const Recording recording = ReadEtm();
  base::WarningList warnings;
  TraceRecordReader reader(recording.header.events, warnings);
  EXPECT_FALSE(reader.saw_trace_info());
  EXPECT_EQ(reader.setup(), nullptr);
  const std::vector<TraceBlock> blocks = ReadAll(reader, recording);
  EXPECT_TRUE(reader.saw_trace_info());
  ASSERT_NE(reader.setup(), nullptr);
  EXPECT_EQ(reader.setup()->info.sources.size(), reader.setup()->trace_ids.size());
  ASSERT_EQ(blocks.size(), 4u);
  const std::vector<size_t> sizes = {0x50, 0x50, 0x50, 0x90};
  for (size_t i = 0; i < blocks.size(); ++i) {
    EXPECT_EQ(blocks[i].cpu, kCpu);
    EXPECT_EQ(blocks[i].data.size(), sizes[i]);
    EXPECT_EQ(blocks[i].seed_pid, 17235);
    EXPECT_EQ(blocks[i].seed_tid, 17235);
  }
  EXPECT_EQ(blocks[0].time, 1118687117325u);
  EXPECT_EQ(blocks[3].time, 1118693749982u);
  EXPECT_TRUE(reader.Finish().empty());
  EXPECT_TRUE(warnings.lines().empty());
}

TEST(TraceRecordReader, ASwitchInNamesTheThreadAndASwitchOutDoesNot) {
  const Recording recording = ReadEtm();
  base::WarningList warnings;
  TraceRecordReader reader(recording.header.events, warnings);
  const std::vector<TraceBlock> blocks =
      ReadAll(reader, recording,
              {MakeRecord(recording, PERF_RECORD_SWITCH_CPU_WIDE, 0, Words({1, 2}), 99, 100),
               MakeRecord(recording, PERF_RECORD_SWITCH_CPU_WIDE, PERF_RECORD_MISC_SWITCH_OUT,
                          Words({3, 4}), 55, 56)});
  ASSERT_EQ(blocks.size(), 4u);
  EXPECT_EQ(blocks[0].seed_pid, 99);
  EXPECT_EQ(blocks[0].seed_tid, 100);
  // The recording's second ITRACE_START (0xc28) comes before the last AUX.
  EXPECT_EQ(blocks[3].seed_pid, 17235);
}

TEST(TraceRecordReader, TraceBeforeItsInfoIsAnErrorNamingTheOffset) {
  const Recording recording = ReadEtm();
  base::WarningList warnings;
  TraceRecordReader reader(recording.header.events, warnings);
  const perf::OwnedRecord* auxtrace = FirstOf(recording, PERF_RECORD_AUXTRACE);
  ASSERT_NE(auxtrace, nullptr);
  absl::StatusOr<std::vector<TraceBlock>> blocks = reader.ReadAuxtrace(auxtrace->view());
  ASSERT_FALSE(blocks.ok());
  EXPECT_THAT(blocks.status().message(), HasSubstr("AUXTRACE at offset 0x26a8"));
  EXPECT_THAT(blocks.status().message(), HasSubstr("before any AUXTRACE_INFO"));
}

TEST(TraceRecordReader, AHwIdChangesTheSetupOnlyWhenItChangesATraceId) {
  const Recording recording = ReadEtm();
  base::WarningList warnings;
  TraceRecordReader reader(recording.header.events, warnings);
  const perf::OwnedRecord* info = FirstOf(recording, PERF_RECORD_AUXTRACE_INFO);
  ASSERT_NE(info, nullptr);
  ASSERT_TRUE(reader.ReadAuxtraceInfo(info->view()).ok());
  const std::shared_ptr<const DecodeSetup> first = reader.setup();
  ASSERT_NE(first, nullptr);
  ASSERT_TRUE(first->trace_ids.count(kCpu));
  const uint8_t recorded = first->trace_ids.at(kCpu);
  const uint8_t other = recorded == 0x25 ? 0x26 : 0x25;

  // The trace id is the low 7 bits (the version sits above them).
  reader.ReadHwId(HwId(recording, (uint64_t{1} << 32) | 0x80 | other).view());
  const std::shared_ptr<const DecodeSetup> second = reader.setup();
  ASSERT_NE(second, first);
  EXPECT_EQ(second->generation, first->generation + 1);
  EXPECT_EQ(second->trace_ids.at(kCpu), other);
  EXPECT_EQ(first->trace_ids.at(kCpu), recorded);  // blocks read before keep theirs

  reader.ReadHwId(HwId(recording, other).view());  // the same id again
  EXPECT_EQ(reader.setup(), second);
  EXPECT_TRUE(warnings.lines().empty());

  reader.ReadHwId(HwId(recording, recorded, /*with_id=*/false).view());
  EXPECT_EQ(reader.setup(), second);
  ASSERT_EQ(warnings.lines().size(), 1u);
  EXPECT_THAT(warnings.lines()[0], HasSubstr("AUX_OUTPUT_HW_ID at offset 0x1000 has no CPU"));
}

}  // namespace
}  // namespace perftk::cs_etm
