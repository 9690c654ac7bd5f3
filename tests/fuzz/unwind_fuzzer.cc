// libFuzzer target: any bytes as a recording through perftk unwind with
// --jobs 2 (a worker thread unwinds windows of samples beside the caller),
// written to /dev/null (the pipe layout writer). Errors are fine; crashes,
// sanitizer reports, hangs and aborts are not. Issue 26's D4 lived here: a
// bad record mid-run unmapped the input while the worker still read stack
// copies in it.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "base/warnings.h"
#include "inject/pipeline.h"
#include "unwind/unwind_tool.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // The input is a file, so that it is mapped as a recording on disk is.
  static const int fd = memfd_create("perftk-unwind-fuzz", 0);
  if (fd < 0 || ftruncate(fd, 0) != 0) return 0;
  size_t done = 0;
  while (done < size) {
    ssize_t n = pwrite(fd, data + done, size - done, static_cast<off_t>(done));
    if (n <= 0) return 0;
    done += static_cast<size_t>(n);
  }
  perftk::unwind::UnwindSettings settings;
  settings.jobs = 2;
  perftk::unwind::UnwindTool tool(settings);
  perftk::PipelineOptions options;
  options.input = "/proc/self/fd/" + std::to_string(fd);
  options.output = "/dev/null";
  options.ordered = true;
  perftk::base::WarningList warnings;
  (void)perftk::RunPipeline(tool, options, warnings);
  return 0;
}
