// The bridge from perf.data records to the machine model: turns MMAP, MMAP2,
// COMM, FORK, EXIT and KSYMBOL records into the model's events and applies
// them. Every other record type leaves the model as it is.
#ifndef PERFTK_MACHINE_RECORD_EVENTS_H_
#define PERFTK_MACHINE_RECORD_EVENTS_H_

#include "absl/status/statusor.h"
#include "machine/events.h"
#include "machine/machines.h"
#include "perf/record.h"

namespace perftk::machine {

absl::StatusOr<MmapEvent> MmapEventOf(const perf::Record& record);  // MMAP or MMAP2
absl::StatusOr<CommEvent> CommEventOf(const perf::Record& record);
absl::StatusOr<TaskEvent> TaskEventOf(const perf::Record& record);  // FORK or EXIT
absl::StatusOr<KsymbolEvent> KsymbolEventOf(const perf::Record& record);

// True for the record types that change the model.
bool ChangesMachines(uint32_t record_type);

// Applies one record; errors name the record's offset and type.
absl::Status ApplyRecord(Machines& machines, const perf::Record& record);

}  // namespace perftk::machine

#endif  // PERFTK_MACHINE_RECORD_EVENTS_H_
