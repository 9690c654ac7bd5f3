// Converts records written on a machine of the other byte order to native
// order, in place, field by field as each record type lays them out.
#ifndef PERFTK_PERF_SWAP_H_
#define PERFTK_PERF_SWAP_H_

#include "absl/status/status.h"
#include "base/bytes.h"
#include "perf/header.h"

namespace perftk::perf {

// `record` is a whole record, header included, still in foreign order.
// Tracepoint RAW payloads, AUX data and user stack copies stay as recorded:
// they are the traced machine's memory, not perf's fields. Record types whose
// layout perftk does not know have only their header converted.
absl::Status SwapRecordToNative(const EventList& events, base::MutableBytes record);

// Swaps a perf_event_header (type, misc, size) in place.
void SwapRecordHeader(std::byte* header);

}  // namespace perftk::perf

#endif  // PERFTK_PERF_SWAP_H_
