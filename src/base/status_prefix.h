// Naming where an error happened without losing what kind it is.
#ifndef PERFTK_BASE_STATUS_PREFIX_H_
#define PERFTK_BASE_STATUS_PREFIX_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace perftk::base {

// `status` with `prefix` put before its message ("in.data: " + "offset
// 0x40: ..."); its code and payloads are kept, so that a closed pipe
// (interrupt.h) or a usage error stays one. An OK status stays OK.
absl::Status Prefixed(absl::string_view prefix, const absl::Status& status);

}  // namespace perftk::base

#endif  // PERFTK_BASE_STATUS_PREFIX_H_
