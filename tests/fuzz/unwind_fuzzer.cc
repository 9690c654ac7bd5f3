// libFuzzer target: any bytes as a recording through perftk unwind with
// --jobs 2 (a worker thread unwinds windows of samples beside the caller),
// written to /dev/null (the pipe layout writer). Errors are fine; crashes,
// sanitizer reports, hangs and aborts are not. Issue 26's D4 lived here: a
// bad record mid-run unmapped the input while the worker still read stack
// copies in it.

#include <cstddef>
#include <cstdint>
#include <string>

#include "base/warnings.h"
#include "fuzz_file.h"
#include "pipeline/pipeline.h"
#include "unwind/unwind_tool.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input = perftk::fuzz::AsFile(data, size);
  if (input.empty()) return 0;
  perftk::unwind::UnwindSettings settings;
  settings.jobs = 2;
  perftk::unwind::UnwindTool tool(settings);
  perftk::pipeline::PipelineOptions options;
  options.input = input;
  options.output = "/dev/null";
  options.ordered = true;
  perftk::base::WarningList warnings;
  (void)perftk::pipeline::RunPipeline(tool, options, warnings);
  return 0;
}
