// The tracing_data feature (perf's copy of tracefs: event formats, plus the
// kernel's symbol table and printk format addresses) and how to take the
// kernel addresses out of it.
#ifndef PERFTK_PERF_TRACING_DATA_H_
#define PERFTK_PERF_TRACING_DATA_H_

#include <cstddef>
#include <vector>

#include "absl/status/status.h"

namespace perftk::perf {

// Empties the kallsyms and ftrace printk parts of a tracing_data section (they
// hold kernel addresses); keeps the header pages, ftrace and event formats and
// saved cmdlines, so perf still names and formats tracepoint events.
absl::Status ScrubTracingData(std::vector<std::byte>& section);

}  // namespace perftk::perf

#endif  // PERFTK_PERF_TRACING_DATA_H_
