// Runs a Tool over a recording: reads the input, lets the tool rewrite it,
// writes the output (a base::OutputFile: whole or not at all, or a stream
// written in place). The reader's warnings go to the caller's sink.
#ifndef PERFTK_PIPELINE_PIPELINE_H_
#define PERFTK_PIPELINE_PIPELINE_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "base/warnings.h"
#include "perf/header.h"
#include "pipeline/tool.h"

namespace perftk::pipeline {

struct PipelineOptions {
  std::string input;   // "-" for stdin
  std::string output;  // "-" for stdout; empty: no perf.data is written
  // Output layout; by default pipe for a stream (stdout, a FIFO, a device),
  // file otherwise.
  std::optional<perf::DataLayout> layout;
  // Hand records to the tool in timestamp order (OrderedReader) instead of
  // stored order. Tools that follow address spaces need this.
  bool ordered = false;
  // On a terminal, progress on stderr (pipeline/progress.h) under this label.
  std::string progress_label = "perftk";
  bool show_progress = true;
};

struct PipelineStats {
  uint64_t records_read = 0;
  uint64_t records_written = 0;
};

absl::StatusOr<PipelineStats> RunPipeline(Tool& tool, const PipelineOptions& options,
                                          base::WarningSink& warnings);

}  // namespace perftk::pipeline

#endif  // PERFTK_PIPELINE_PIPELINE_H_
