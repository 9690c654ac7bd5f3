// simpleperf's real ETM recording (tests/data/simpleperf-etm/perf_etm.data)
// read once for the tests of the pieces under the decode tool: its
// header, its records, the machine model they make, and its trace blocks
// with the setup each was read with; and what a lane reads to decode them.
#ifndef PERFTK_TESTS_CS_ETM_ETM_RECORDING_H_
#define PERFTK_TESTS_CS_ETM_ETM_RECORDING_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cs_etm/binary_images.h"
#include "cs_etm/decode_options.h"
#include "cs_etm/sample_output.h"
#include "cs_etm/trace_records.h"
#include "machine/machines.h"
#include "perf/features.h"
#include "perf/header.h"
#include "perf/record.h"

namespace perftk::cs_etm {

// The folder of the recording and the binaries it traced, with a '/'.
extern const std::string kEtmDir;

struct EtmRecording {
  perf::Header header;
  std::vector<perf::OwnedRecord> records;  // the blocks point into them
  machine::Machines model;
  std::vector<TraceBlock> blocks;
  std::vector<std::shared_ptr<const DecodeSetup>> setups;  // one per block
};

// Reads `file` of kEtmDir (gtest failures on errors).
std::unique_ptr<EtmRecording> ReadEtmRecording(const std::string& file);

// Applies `records`' model records to `model` as cs-etm-decode does
// (EXIT left out).
void ApplyModelRecords(const std::vector<perf::OwnedRecord>& records, machine::Machines& model);

// What lanes read besides the model (LaneInputs): script output of
// `itrace` on `jobs` threads, binaries from kEtmDir.
struct LaneReadings {
  LaneReadings(const std::string& itrace, int jobs, perf::Header& header);
  DecodeOptions options;
  BinaryImages images{kEtmDir, {}};
  std::optional<SampleEncoder> encoder;  // none if it could not be made
  perf::BuildIdsByPath build_ids;
};

// Every sample of `samples`, end to end (a gtest failure if they cannot
// be read back).
std::string Contents(const EncodedSamples& samples);

}  // namespace perftk::cs_etm

#endif  // PERFTK_TESTS_CS_ETM_ETM_RECORDING_H_
