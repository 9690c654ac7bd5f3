// The HEADER_ATTR records of a pipe, for tools that change attrs: each one
// adds its event to the tool's lists of input and output events and is
// written with the changed attr.
#ifndef PERFTK_INJECT_HEADER_ATTR_H_
#define PERFTK_INJECT_HEADER_ATTR_H_

#include <cstddef>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "perf/attr.h"
#include "perf/header.h"
#include "perf/record.h"

namespace perftk {

// Adds the attr of `record` (a HEADER_ATTR) to `input` as recorded and, once
// `change` has run on it, to `output`; returns the record's new bytes.
absl::StatusOr<std::vector<std::byte>> RewriteHeaderAttr(
    const Record& record, EventList& input, EventList& output,
    absl::FunctionRef<void(EventAttr&)> change);

}  // namespace perftk

#endif  // PERFTK_INJECT_HEADER_ATTR_H_
