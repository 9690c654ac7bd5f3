// Naming where an error happened without losing what kind it is, and
// marking a kind that a status code does not say (a usage error, a closed
// pipe).
#ifndef PERFTK_BASE_STATUS_PREFIX_H_
#define PERFTK_BASE_STATUS_PREFIX_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace perftk::base {

// `status` with `prefix` put before its message ("in.data: " + "offset
// 0x40: ..."); its code and payloads are kept, so that a closed pipe
// (interrupt.h) or a usage error stays one. An OK status stays OK.
absl::Status Prefixed(absl::string_view prefix, const absl::Status& status);

// `status` marked as of kind `mark` ("perftk/usage-error"), a payload that
// Prefixed keeps; HasMark tells.
absl::Status Marked(absl::Status status, absl::string_view mark);
bool HasMark(const absl::Status& status, absl::string_view mark);

}  // namespace perftk::base

#endif  // PERFTK_BASE_STATUS_PREFIX_H_
