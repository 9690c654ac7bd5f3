// What the synthesized samples of a decode become in its output format:
//   - kPerf: PERF_RECORD_SAMPLEs of the events Create adds to the header,
//     "instructions" (PERF_TYPE_HARDWARE) for i, "branches" for b, stamped
//     user or kernel by the sample's exception level (or its address when
//     the trace has none);
//   - kScript: perf 6.1's `perf script -F pid,tid,ip,brstack` lines;
//   - kAutoFdo, kBolt: nothing (the lanes' profiles are the output).
// Encoding a sample reads only what Create made: it is thread-safe.
#ifndef PERFTK_CS_ETM_SAMPLE_OUTPUT_H_
#define PERFTK_CS_ETM_SAMPLE_OUTPUT_H_

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cs_etm/decode_options.h"
#include "cs_etm/encoded_samples.h"
#include "cs_etm/itrace.h"
#include "cs_etm/synthesizer.h"
#include "perf/header.h"

namespace perftk::cs_etm {

class SampleEncoder {
 public:
  // For kPerf, adds the synthesized events to `header` (and its
  // BRANCH_STACK feature with l; drops its AUXTRACE feature). When the
  // events identify samples by PERF_SAMPLE_ID without IDENTIFIER, the
  // input's events get the sample_type bits that place the id where the new
  // events have it (changed_input_attrs). Fails when there is no event.
  static absl::StatusOr<SampleEncoder> Create(OutputFormat format, const ItraceOptions& itrace,
                                              perf::Header& header);

  // kPerf: whether Create changed the input's events, so that samples of
  // their own can no longer be written under them.
  bool changed_input_attrs() const { return changed_input_attrs_; }

  // Adds `sample` to `out` as the format has it: a PERF_RECORD_SAMPLE's
  // bytes, or a script line. kPerf writes nothing for a sample whose kind
  // has no event (an i sample without i asked). Fails as `out` does.
  absl::Status Encode(const SynthesizedSample& sample, EncodedSamples& out) const;

 private:
  explicit SampleEncoder(OutputFormat format) : format_(format) {}
  absl::Status AddEvents(const ItraceOptions& itrace, perf::Header& header);

  OutputFormat format_;
  perf::EventList events_;  // kPerf: the output's events
  std::optional<size_t> instructions_event_;
  std::optional<size_t> branches_event_;
  bool changed_input_attrs_ = false;
};

}  // namespace perftk::cs_etm

#endif  // PERFTK_CS_ETM_SAMPLE_OUTPUT_H_
