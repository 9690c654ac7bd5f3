#include "etm_recording.h"

#include <utility>

#include "base/warnings.h"
#include "cs_etm/itrace.h"
#include "gtest/gtest.h"
#include "machine/record_events.h"
#include "perf/reader.h"

namespace perftk::cs_etm {

const std::string kEtmDir = std::string(PERFTK_ETM_DATA_DIR) + "/";

void ApplyModelRecords(const std::vector<perf::OwnedRecord>& records, machine::Machines& model) {
  for (const perf::OwnedRecord& owned : records) {
    const perf::Record record = owned.view();
    if (machine::ChangesMachines(record.type()) && record.type() != PERF_RECORD_EXIT) {
      EXPECT_TRUE(machine::ApplyRecord(model, record).ok());
    }
  }
}

std::unique_ptr<EtmRecording> ReadEtmRecording(const std::string& file) {
  auto trace = std::make_unique<EtmRecording>();
  auto reader = perf::PerfDataReader::Open(kEtmDir + file);
  EXPECT_TRUE(reader.ok()) << reader.status();
  if (!reader.ok()) return trace;
  trace->header = (*reader)->header();
  while (true) {
    auto record = (*reader)->Next();
    EXPECT_TRUE(record.ok()) << record.status();
    if (!record.ok() || !*record) break;
    trace->records.emplace_back(**record);
  }
  ApplyModelRecords(trace->records, trace->model);
  base::WarningList warnings;
  TraceRecordReader records(trace->header.events, warnings);
  for (const perf::OwnedRecord& owned : trace->records) {
    const perf::Record record = owned.view();
    switch (record.type()) {
      case PERF_RECORD_AUXTRACE_INFO:
        EXPECT_TRUE(records.ReadAuxtraceInfo(record).ok());
        break;
      case PERF_RECORD_AUX:
        EXPECT_TRUE(records.ReadAux(record).ok());
        break;
      case PERF_RECORD_ITRACE_START:
        records.ReadItraceStart(record);
        break;
      case PERF_RECORD_AUXTRACE: {
        absl::StatusOr<std::vector<TraceBlock>> blocks = records.ReadAuxtrace(record);
        EXPECT_TRUE(blocks.ok()) << blocks.status();
        if (!blocks.ok()) break;
        for (const TraceBlock& block : *blocks) {
          trace->blocks.push_back(block);
          trace->setups.push_back(records.setup());
        }
        break;
      }
      default:
        break;
    }
  }
  return trace;
}

LaneReadings::LaneReadings(const std::string& itrace, int jobs, perf::Header& header) {
  options.itrace = *ParseItrace(itrace);
  options.format = OutputFormat::kScript;
  options.symfs = kEtmDir;
  options.jobs = jobs;
  absl::StatusOr<SampleEncoder> made =
      SampleEncoder::Create(options.format, options.itrace, header);
  EXPECT_TRUE(made.ok()) << made.status();
  if (made.ok()) encoder.emplace(*std::move(made));
}

std::string Contents(const EncodedSamples& samples) {
  std::string all;
  absl::Status read = samples.ForEachPiece([&all](absl::string_view piece) {
    all.append(piece.data(), piece.size());
    return absl::OkStatus();
  });
  EXPECT_TRUE(read.ok()) << read;
  return all;
}

}  // namespace perftk::cs_etm
