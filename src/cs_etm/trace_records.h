// Reads the records that describe a CoreSight recording's trace, in file
// order, into trace blocks and the setup decoders are made from:
//   - AUXTRACE_INFO: the trace sources (metadata.h) and their trace ids;
//   - AUX_OUTPUT_HW_ID: a CPU's trace id, given by the kernel at run time;
//   - ITRACE_START, SWITCH (in): the thread a CPU runs, assumed at the start
//     of the CPU's next block until its trace says otherwise;
//   - AUX: which part of an AUX buffer the kernel filled (trace_blocks.h);
//   - AUXTRACE: the trace, cut into blocks.
// A change of the sources or of a trace id makes a new DecodeSetup; blocks
// read before it keep theirs. Records that cannot be used but need not stop
// the decode are skipped with a line appended to `warnings`.
#ifndef PERFTK_CS_ETM_TRACE_RECORDS_H_
#define PERFTK_CS_ETM_TRACE_RECORDS_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/warnings.h"
#include "cs_etm/decoder.h"
#include "cs_etm/metadata.h"
#include "cs_etm/trace_blocks.h"
#include "perf/header.h"
#include "perf/record.h"
#include "perf/sample.h"

namespace perftk::cs_etm {

class TraceRecordReader {
 public:
  // `events` are the input's, to read the sample_id of records;
  // `warnings` must outlive the reader.
  TraceRecordReader(perf::EventList events, base::WarningSink& warnings)
      : events_(std::move(events)), warnings_(warnings) {}

  // Fails on a record that is not CoreSight's or whose metadata is bad.
  absl::Status ReadAuxtraceInfo(const perf::Record& record);
  absl::Status ReadAux(const perf::Record& record);
  void ReadItraceStart(const perf::Record& record);
  void ReadSwitch(const perf::Record& record);
  void ReadHwId(const perf::Record& record);
  // The blocks of an AUXTRACE record, in trace order. Fails before any
  // AUXTRACE_INFO. The blocks' data point into `record`.
  absl::StatusOr<std::vector<TraceBlock>> ReadAuxtrace(const perf::Record& record);
  // One line per AUX record whose data never came, and per stretch of trace
  // that an AUX record marked truncated or collided.
  std::vector<std::string> Finish() { return gatherer_.Finish(); }

  bool saw_trace_info() const { return info_.has_value(); }
  // The setup of the next block; null before AUXTRACE_INFO.
  const std::shared_ptr<const DecodeSetup>& setup() const { return setup_; }

 private:
  std::optional<perf::SampleId> SampleIdOf(const perf::Record& record) const;
  // A new setup from info_ and trace_ids_.
  void RenewSetup();

  const perf::EventList events_;
  base::WarningSink& warnings_;
  std::optional<CsEtmInfo> info_;
  std::map<uint32_t, uint8_t> trace_ids_;  // by cpu
  std::shared_ptr<const DecodeSetup> setup_;
  uint64_t setup_generation_ = 0;
  std::map<uint32_t, std::pair<int32_t, int32_t>> seeds_;  // cpu -> (pid, tid)
  TraceBlockGatherer gatherer_;
};

}  // namespace perftk::cs_etm

#endif  // PERFTK_CS_ETM_TRACE_RECORDS_H_
