#include "cs_etm/trace_records.h"

#include "absl/strings/str_format.h"

namespace perftk::cs_etm {

std::optional<perf::SampleId> TraceRecordReader::SampleIdOf(const perf::Record& record) const {
  absl::StatusOr<size_t> index = events_.IndexOf(record);
  if (!index.ok()) return std::nullopt;
  const perf::SampleFormat& format = events_.format(*index);
  if (!format.sample_id_all) return std::nullopt;
  absl::StatusOr<perf::SampleId> id = perf::DecodeSampleId(format, record.bytes());
  if (!id.ok()) return std::nullopt;
  return *id;
}

absl::Status TraceRecordReader::ReadAuxtraceInfo(const perf::Record& record) {
  absl::StatusOr<perf::AuxtraceInfoRecord> view = perf::AuxtraceInfoRecord::From(record);
  if (!view.ok()) return view.status();
  if (view->auxtrace_type() != kAuxtraceCsEtm) {
    return absl::InvalidArgumentError(
        absl::StrFormat("AUXTRACE_INFO at offset %#x has type %d, not CoreSight (%d)",
                        record.file_offset(), view->auxtrace_type(), kAuxtraceCsEtm));
  }
  std::vector<uint64_t> priv = view->priv();
  absl::StatusOr<CsEtmInfo> info = ParseCsEtmInfo(priv);
  if (!info.ok()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "AUXTRACE_INFO at offset %#x: %s", record.file_offset(), info.status().message()));
  }
  info_ = std::move(*info);
  for (const TraceSource& source : info_->sources) {
    if (source.trace_id_valid) trace_ids_[source.cpu] = source.trace_id();
  }
  RenewSetup();
  return absl::OkStatus();
}

void TraceRecordReader::RenewSetup() {
  if (!info_) return;
  auto setup = std::make_shared<DecodeSetup>();
  setup->info = *info_;
  setup->trace_ids = trace_ids_;
  setup->generation = ++setup_generation_;
  setup_ = std::move(setup);
}

absl::Status TraceRecordReader::ReadAux(const perf::Record& record) {
  absl::StatusOr<perf::AuxRecord> view = perf::AuxRecord::From(record);
  if (!view.ok()) return view.status();
  AuxFragment fragment;
  fragment.offset = view->aux_offset();
  fragment.size = view->aux_size();
  fragment.flags = view->flags();
  fragment.file_offset = record.file_offset();
  if (std::optional<perf::SampleId> id = SampleIdOf(record)) {
    fragment.cpu = id->cpu;
    fragment.tid = id->tid;
    fragment.time = id->time;
    if (auto seed = seeds_.find(id->cpu); seed != seeds_.end()) {
      fragment.seed_pid = seed->second.first;
      fragment.seed_tid = seed->second.second;
    }
  }
  gatherer_.AddAux(fragment);
  return absl::OkStatus();
}

void TraceRecordReader::ReadItraceStart(const perf::Record& record) {
  absl::StatusOr<perf::ItraceStartRecord> start = perf::ItraceStartRecord::From(record);
  if (!start.ok()) return;
  int32_t pid = static_cast<int32_t>(start->pid());
  int32_t tid = static_cast<int32_t>(start->tid());
  if (std::optional<perf::SampleId> id = SampleIdOf(record)) seeds_[id->cpu] = {pid, tid};
}

void TraceRecordReader::ReadSwitch(const perf::Record& record) {
  if (record.misc() & PERF_RECORD_MISC_SWITCH_OUT) return;
  if (std::optional<perf::SampleId> id = SampleIdOf(record)) {
    seeds_[id->cpu] = {static_cast<int32_t>(id->pid), static_cast<int32_t>(id->tid)};
  }
}

void TraceRecordReader::ReadHwId(const perf::Record& record) {
  absl::StatusOr<perf::AuxOutputHwIdRecord> hw = perf::AuxOutputHwIdRecord::From(record);
  if (!hw.ok()) return;
  uint64_t hw_id = hw->hw_id();
  std::optional<perf::SampleId> id = SampleIdOf(record);
  if (!id) {
    warnings_.Warn(
        absl::StrFormat("AUX_OUTPUT_HW_ID at offset %#x has no CPU: its trace id is ignored",
                        record.file_offset()));
    return;
  }
  uint8_t trace_id = static_cast<uint8_t>(hw_id & 0x7f);
  auto [it, inserted] = trace_ids_.insert({id->cpu, trace_id});
  if (!inserted && it->second != trace_id) {
    it->second = trace_id;
    RenewSetup();
  } else if (inserted) {
    RenewSetup();
  }
}

absl::StatusOr<std::vector<TraceBlock>> TraceRecordReader::ReadAuxtrace(
    const perf::Record& record) {
  absl::StatusOr<perf::AuxtraceRecord> view = perf::AuxtraceRecord::From(record);
  if (!view.ok()) return view.status();
  if (!info_) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "AUXTRACE at offset %#x comes before any AUXTRACE_INFO: no trace source is known",
        record.file_offset()));
  }
  AuxtraceBuffer buffer;
  buffer.offset = view->offset();
  buffer.size = view->payload_size();
  buffer.idx = view->idx();
  buffer.tid = view->tid();
  buffer.cpu = view->cpu();
  buffer.file_offset = record.file_offset();
  base::Bytes payload = record.trailing_payload();
  if (payload.size() < buffer.size) {
    warnings_.Warn(absl::StrFormat("AUXTRACE at offset %#x announces %d bytes of trace but has %d",
                                   record.file_offset(), buffer.size, payload.size()));
  }
  return gatherer_.AddAuxtrace(buffer, payload);
}

}  // namespace perftk::cs_etm
