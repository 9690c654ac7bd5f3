// The attr copies a recording keeps besides its attrs section, for tools
// that change attrs: a pipe's HEADER_ATTR records (each one adds its event to
// the tool's lists of input and output events and is written with the
// changed attr) and a file's EVENT_DESC feature, which perf report
// --header-only lists.
#ifndef PERFTK_PIPELINE_HEADER_ATTR_H_
#define PERFTK_PIPELINE_HEADER_ATTR_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "perf/attr.h"
#include "perf/header.h"
#include "perf/record.h"

namespace perftk::pipeline {

// Adds the attr of `record` (a HEADER_ATTR) to `input` as recorded and, once
// `change` has run on it, to `output`; returns the record's new bytes.
absl::StatusOr<std::vector<std::byte>> RewriteHeaderAttr(
    const perf::Record& record, perf::EventList& input, perf::EventList& output,
    absl::FunctionRef<void(perf::EventAttr&)> change);

// Runs `change` on every attr of an EVENT_DESC section (native byte order)
// and writes each back in place, at the section's attr size, and gives each
// event the name `rename` makes of it when that fits the name's field (else
// the name stays). DataLoss if the section is malformed; then the section
// is unchanged.
absl::Status RewriteEventDesc(std::vector<std::byte>& section,
                              absl::FunctionRef<void(perf::EventAttr&)> change,
                              absl::FunctionRef<std::string(const std::string&)> rename);
// The same with every name kept.
absl::Status RewriteEventDescAttrs(std::vector<std::byte>& section,
                                   absl::FunctionRef<void(perf::EventAttr&)> change);

}  // namespace perftk::pipeline

#endif  // PERFTK_PIPELINE_HEADER_ATTR_H_
