#include "cs_etm/sample_output.h"

#include <algorithm>
#include <cstdint>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/bytes.h"
#include "perf/record.h"
#include "perf/sample.h"

namespace perftk::cs_etm {
namespace {

// sample_type bits that place the id of a sample, counted from its start.
constexpr uint64_t kBitsBeforeId =
    PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR;
// sample_type bits of the sample_id trailer.
constexpr uint64_t kTrailerBits = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
                                  PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER;
// attr flag bits copied to the synthesized events: exclude_user/kernel/hv/idle,
// sample_id_all, exclude_host/guest.
constexpr uint64_t kCopiedFlags =
    (uint64_t{0xf} << kAttrFlagExcludeUser) | (uint64_t{1} << kAttrFlagSampleIdAll) |
    (uint64_t{1} << kAttrFlagExcludeHost) | (uint64_t{1} << kAttrFlagExcludeGuest);

// perf 6.1's layout for -F pid,tid,ip,brstack.
void AppendScriptLine(const SynthesizedSample& sample, std::string& text) {
  absl::StrAppendFormat(&text, "%5d/%-5d  %16x", sample.context.pid, sample.context.tid, sample.ip);
  for (const perf::BranchEntry& entry : sample.branches) {
    absl::StrAppendFormat(&text, " 0x%x/0x%x/P/-/-/0/ ", entry.from, entry.to);
  }
  absl::StrAppend(&text, "\n");
}

}  // namespace

absl::StatusOr<SampleEncoder> SampleEncoder::Create(OutputFormat format,
                                                    const ItraceOptions& itrace,
                                                    perf::Header& header) {
  SampleEncoder encoder(format);
  if (format == OutputFormat::kPerf) {
    if (absl::Status s = encoder.AddEvents(itrace, header); !s.ok()) return s;
  }
  return encoder;
}

absl::Status SampleEncoder::AddEvents(const ItraceOptions& itrace, perf::Header& header) {
  if (header.events.empty()) return absl::InvalidArgumentError("the recording has no events");
  // A copy: adding events below moves the attrs.
  const perf::EventAttr base = header.events.attrs().front();
  uint64_t sample_type = (base.sample_type() & kTrailerBits) | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
                         PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD;
  if (itrace.branches) sample_type |= PERF_SAMPLE_ADDR;
  if (itrace.last_branch) sample_type |= PERF_SAMPLE_BRANCH_STACK;
  // With several events perf finds a sample's event by its id, which must sit
  // at the same place in every event's samples. Without IDENTIFIER the place
  // depends on IP/TID/TIME/ADDR: give the input's events the bits the new
  // events have (their layout only changes for samples, which CoreSight
  // recordings' events do not produce; the tool checks that).
  if (!(sample_type & PERF_SAMPLE_IDENTIFIER) && (sample_type & PERF_SAMPLE_ID)) {
    for (perf::EventAttr& attr : header.events.mutable_attrs()) {
      uint64_t missing = sample_type & kBitsBeforeId & ~attr.sample_type();
      if (missing != 0) {
        attr.set_sample_type(attr.sample_type() | missing);
        changed_input_attrs_ = true;
      }
      if ((attr.sample_type() & kBitsBeforeId) != (sample_type & kBitsBeforeId)) {
        sample_type |= attr.sample_type() & kBitsBeforeId;
      }
    }
  }
  uint64_t next_id = 1;
  for (const perf::EventAttr& attr : header.events.attrs()) {
    for (uint64_t id : attr.ids()) next_id = std::max(next_id, id + 1);
  }
  // A file has one attr size: make the new attrs as large as the input's.
  const std::vector<std::byte> zeros(std::max<size_t>(base.size(), PERF_ATTR_SIZE_VER5));
  auto make = [&](uint64_t config, uint64_t period) {
    perf::EventAttr attr = *perf::EventAttr::FromBytes(zeros);
    attr.SetU32(attr_offset::kType, PERF_TYPE_HARDWARE);
    attr.SetU64(attr_offset::kConfig, config);
    attr.SetU64(attr_offset::kSamplePeriod, period);
    attr.set_sample_type(sample_type);
    attr.SetU64(attr_offset::kFlags, base.flags() & kCopiedFlags);
    if (itrace.last_branch) {
      attr.SetU64(attr_offset::kBranchSampleType, PERF_SAMPLE_BRANCH_ANY);
    }
    attr.ids().push_back(next_id++);
    return attr;
  };
  if (itrace.instructions) {
    // Sampled every N taken branches, the event keeps its name (consumers
    // look for instruction samples) and states N as its period.
    header.events.Add(make(PERF_COUNT_HW_INSTRUCTIONS,
                           itrace.taken_period != 0 ? itrace.taken_period : itrace.period));
    instructions_event_ = header.events.size() - 1;
  }
  if (itrace.branches) {
    header.events.Add(make(PERF_COUNT_HW_BRANCH_INSTRUCTIONS, 1));
    branches_event_ = header.events.size() - 1;
  }
  if (itrace.last_branch) header.features[HEADER_BRANCH_STACK] = {};
  header.features.erase(HEADER_AUXTRACE);
  events_ = header.events;
  return absl::OkStatus();
}

absl::Status SampleEncoder::Encode(const SynthesizedSample& sample, EncodedSamples& out) const {
  if (format_ == OutputFormat::kScript) {
    return out.Add([&sample](std::string& text) { AppendScriptLine(sample, text); });
  }
  if (format_ != OutputFormat::kPerf) return absl::OkStatus();
  const bool instruction = sample.kind == SynthesizedSample::Kind::kInstruction;
  const std::optional<size_t> event = instruction ? instructions_event_ : branches_event_;
  if (!event) return absl::OkStatus();
  // The lane's sample, its branch stack's room kept from one to the next:
  // a lane allocates nothing per sample (malloc in a thread is slow where
  // its arena cannot grow, as under ulimit -v).
  thread_local perf::Sample record;
  const perf::EventAttr& attr = events_.attrs()[*event];
  const perf::SampleFormat& format = events_.format(*event);
  record.identifier = attr.ids().front();
  record.id = attr.ids().front();
  record.ip = sample.ip;
  record.pid = static_cast<uint32_t>(sample.context.pid);
  record.tid = static_cast<uint32_t>(sample.context.tid);
  record.time = sample.time;
  record.addr = sample.addr;
  record.cpu = sample.cpu;
  record.period = sample.period;
  record.branch_stack.entries.clear();
  if (format.has(PERF_SAMPLE_BRANCH_STACK)) {
    record.branch_stack.entries.assign(sample.branches.begin(), sample.branches.end());
  }
  const size_t size = perf::kRecordHeaderSize + perf::EncodedSampleSize(format, record);
  if (absl::Status s = perf::CheckRecordSize(PERF_RECORD_SAMPLE, size); !s.ok()) return s;
  const uint16_t misc =
      IsKernel(sample.context, sample.ip) ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;
  return out.Add([&](std::string& held) {
    const size_t at = held.size();
    held.resize(at + size);
    const base::MutableBytes bytes(reinterpret_cast<std::byte*>(held.data() + at), size);
    perf::SetRecordHeader(PERF_RECORD_SAMPLE, misc, bytes).IgnoreError();  // its size fits
    perf::EncodeSampleAt(format, record, bytes.data() + perf::kRecordHeaderSize);
  });
}

}  // namespace perftk::cs_etm
