#include "cs_etm/trace_blocks.h"

#include <algorithm>

#include "absl/strings/str_format.h"
#include "perf/record.h"

namespace perftk::cs_etm {

bool TraceBlockGatherer::SameQueue(const AuxFragment& fragment, const AuxtraceBuffer& buffer) {
  if (buffer.cpu != kNoCpu) return fragment.cpu == buffer.cpu;
  return fragment.tid == buffer.tid;
}

void TraceBlockGatherer::AddAux(const AuxFragment& fragment) {
  if (fragment.cpu != kNoCpu) {
    raw_by_cpu_[fragment.cpu] = (fragment.flags & kAuxFlagCoresightRaw) != 0;
  }
  if (fragment.flags & (kAuxFlagTruncated | kAuxFlagCollision)) {
    notes_.push_back(absl::StrFormat(
        "AUX record at file offset %#x (cpu %d, AUX offset %#x, size %#x) is marked %s: "
        "trace was lost there",
        fragment.file_offset, static_cast<int32_t>(fragment.cpu), fragment.offset, fragment.size,
        (fragment.flags & kAuxFlagTruncated) ? "truncated" : "collided"));
  }
  if (fragment.size == 0) return;
  pending_.push_back(fragment);
}

std::vector<TraceBlock> TraceBlockGatherer::AddAuxtrace(const AuxtraceBuffer& buffer,
                                                        base::Bytes payload) {
  std::vector<TraceBlock> blocks;
  const uint64_t begin = buffer.offset;
  const uint64_t end = buffer.offset + payload.size();
  auto make_block = [&](uint64_t from, uint64_t to) {
    TraceBlock block;
    block.cpu = buffer.cpu;
    block.tid = buffer.tid;
    block.aux_offset = from;
    block.file_offset = buffer.file_offset + perf::kAuxtraceRecordSize + (from - begin);
    block.data = payload.subspan(from - begin, to - from);
    return block;
  };
  bool any = false;
  for (auto it = pending_.begin(); it != pending_.end();) {
    const AuxFragment& fragment = *it;
    uint64_t from = std::max(fragment.offset, begin);
    uint64_t to = std::min(fragment.offset + fragment.size, end);
    if (!SameQueue(fragment, buffer) || from >= to) {
      ++it;
      continue;
    }
    any = true;
    TraceBlock block = make_block(from, to);
    block.formatted = (fragment.flags & kAuxFlagCoresightRaw) == 0;
    block.flags = fragment.flags;
    block.time = fragment.time;
    block.seed_pid = fragment.seed_pid;
    block.seed_tid = fragment.seed_tid;
    if (block.cpu == kNoCpu) block.cpu = fragment.cpu;
    blocks.push_back(block);
    // A fragment that runs past this buffer continues in the next one.
    if (fragment.offset + fragment.size > end) {
      it->size = fragment.offset + fragment.size - end;
      it->offset = end;
      ++it;
    } else {
      it = pending_.erase(it);
    }
  }
  if (!any && !payload.empty()) {
    TraceBlock block = make_block(begin, end);
    auto raw = raw_by_cpu_.find(buffer.cpu);
    block.formatted = raw == raw_by_cpu_.end() || !raw->second;
    blocks.push_back(block);
  }
  std::stable_sort(blocks.begin(), blocks.end(), [](const TraceBlock& a, const TraceBlock& b) {
    return a.aux_offset < b.aux_offset;
  });
  return blocks;
}

std::vector<std::string> TraceBlockGatherer::Finish() {
  std::vector<std::string> notes = std::move(notes_);
  notes_.clear();
  missing_ += pending_.size();
  if (!pending_.empty()) {
    uint64_t bytes = 0;
    for (const AuxFragment& fragment : pending_) bytes += fragment.size;
    const AuxFragment& first = pending_.front();
    notes.push_back(absl::StrFormat(
        "%d AUX records (%d bytes of trace) have no AUXTRACE data in the file, the first at "
        "file offset %#x (cpu %d, AUX offset %#x): that trace cannot be decoded",
        pending_.size(), bytes, first.file_offset, static_cast<int32_t>(first.cpu), first.offset));
  }
  pending_.clear();
  return notes;
}

}  // namespace perftk::cs_etm
