#include "machine/record_events.h"

#include <sys/mman.h>

#include "absl/strings/str_format.h"

namespace perftk::machine {

namespace {

// The fields MMAP and MMAP2 share.
template <typename View>
MmapEvent CommonMmapFields(const perf::Record& record, const View& m) {
  MmapEvent e;
  e.misc = record.misc();
  e.pid = static_cast<int32_t>(m.pid());
  e.tid = static_cast<int32_t>(m.tid());
  e.start = m.start();
  e.len = m.len();
  e.pgoff = m.pgoff();
  e.filename = std::string(m.filename());
  return e;
}

}  // namespace

absl::StatusOr<MmapEvent> MmapEventOf(const perf::Record& record) {
  if (record.type() == PERF_RECORD_MMAP) {
    absl::StatusOr<perf::MmapRecord> m = perf::MmapRecord::From(record);
    if (!m.ok()) return m.status();
    MmapEvent e = CommonMmapFields(record, *m);
    e.prot = (record.misc() & PERF_RECORD_MISC_MMAP_DATA) ? PROT_READ : PROT_READ | PROT_EXEC;
    return e;
  }
  absl::StatusOr<perf::Mmap2Record> m = perf::Mmap2Record::From(record);
  if (!m.ok()) return m.status();
  MmapEvent e = CommonMmapFields(record, *m);
  if (m->has_build_id()) {
    e.build_id = base::BuildId::FromBytes(m->build_id());
  } else {
    e.maj = m->maj();
    e.min = m->min();
    e.ino = m->ino();
    e.ino_generation = m->ino_generation();
  }
  e.prot = m->prot();
  e.flags = m->flags();
  return e;
}

absl::StatusOr<CommEvent> CommEventOf(const perf::Record& record) {
  absl::StatusOr<perf::CommRecord> c = perf::CommRecord::From(record);
  if (!c.ok()) return c.status();
  CommEvent e;
  e.misc = record.misc();
  e.pid = static_cast<int32_t>(c->pid());
  e.tid = static_cast<int32_t>(c->tid());
  e.comm = std::string(c->comm());
  return e;
}

absl::StatusOr<TaskEvent> TaskEventOf(const perf::Record& record) {
  absl::StatusOr<perf::ForkRecord> f = perf::ForkRecord::From(record);
  if (!f.ok()) return f.status();
  TaskEvent e;
  e.misc = record.misc();
  e.pid = static_cast<int32_t>(f->pid());
  e.ppid = static_cast<int32_t>(f->ppid());
  e.tid = static_cast<int32_t>(f->tid());
  e.ptid = static_cast<int32_t>(f->ptid());
  return e;
}

absl::StatusOr<KsymbolEvent> KsymbolEventOf(const perf::Record& record) {
  absl::StatusOr<perf::KsymbolRecord> k = perf::KsymbolRecord::From(record);
  if (!k.ok()) return k.status();
  KsymbolEvent e;
  e.misc = record.misc();
  e.addr = k->addr();
  e.len = k->len();
  e.ksym_type = k->ksym_type();
  e.flags = k->flags();
  e.name = std::string(k->name());
  return e;
}

bool ChangesMachines(uint32_t type) {
  switch (type) {
    case PERF_RECORD_MMAP:
    case PERF_RECORD_MMAP2:
    case PERF_RECORD_COMM:
    case PERF_RECORD_FORK:
    case PERF_RECORD_EXIT:
    case PERF_RECORD_KSYMBOL:
      return true;
    default:
      return false;
  }
}

namespace {

template <typename Event>
absl::Status ApplyEvent(Machines& machines, const perf::Record& record,
                        const absl::StatusOr<Event>& event) {
  absl::Status status = event.ok() ? machines.Apply(*event) : event.status();
  if (status.ok()) return status;
  return perf::RecordError(record, status);
}

}  // namespace

absl::Status ApplyRecord(Machines& machines, const perf::Record& record) {
  switch (record.type()) {
    case PERF_RECORD_MMAP:
    case PERF_RECORD_MMAP2:
      return ApplyEvent(machines, record, MmapEventOf(record));
    case PERF_RECORD_COMM:
      return ApplyEvent(machines, record, CommEventOf(record));
    case PERF_RECORD_FORK: {
      absl::StatusOr<TaskEvent> task = TaskEventOf(record);
      if (!task.ok()) return ApplyEvent(machines, record, absl::StatusOr<ForkEvent>(task.status()));
      ForkEvent fork;
      static_cast<TaskEvent&>(fork) = *task;
      return ApplyEvent(machines, record, absl::StatusOr<ForkEvent>(fork));
    }
    case PERF_RECORD_EXIT: {
      absl::StatusOr<TaskEvent> task = TaskEventOf(record);
      if (!task.ok()) return ApplyEvent(machines, record, absl::StatusOr<ExitEvent>(task.status()));
      ExitEvent exit;
      static_cast<TaskEvent&>(exit) = *task;
      return ApplyEvent(machines, record, absl::StatusOr<ExitEvent>(exit));
    }
    case PERF_RECORD_KSYMBOL:
      return ApplyEvent(machines, record, KsymbolEventOf(record));
    default:
      return absl::OkStatus();
  }
}

}  // namespace perftk::machine
