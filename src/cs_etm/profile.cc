#include "cs_etm/profile.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "profile/autofdo_text.h"
#include "profile/bolt_text.h"
#include "profile/numbers.h"

namespace perftk::cs_etm {
namespace {

// `entries` sorted by their keys (equal keys side by side, in any order).
template <typename Entries>
Entries& SortedByKey(Entries& entries) {
  std::sort(entries.begin(), entries.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  return entries;
}

}  // namespace

uint64_t BinaryLayout::Vaddr(uint64_t offset) const {
  for (const Load& load : loads) {
    if (offset >= load.offset && offset - load.offset < load.file_size) {
      return offset - load.offset + load.vaddr;
    }
  }
  return loads.empty() ? offset : offset - loads.front().offset + loads.front().vaddr;
}

uint64_t BinaryLayout::AutoFdoAddress(uint64_t offset) const {
  return loads.empty() ? offset : Vaddr(offset) - loads.front().vaddr;
}

const BinaryLayout& BranchProfile::LayoutOf(const machine::Dso* dso) const {
  static const BinaryLayout kOffsets;
  auto it = layouts_.find(dso);
  return it == layouts_.end() ? kOffsets : it->second;
}

// Whether `range` ends in a taken branch whose target only the next range
// gives (an indirect branch, or a direct one the packet has no target of).
static bool LeavesPending(const Packet& range) {
  return range.last_taken &&
         (range.last_branch == BranchKind::kIndirect || !range.has_branch_target);
}

inline void BranchProfile::CountRange(uint8_t id, const PacketContext& context, const Packet& range,
                                      uint64_t times) {
  const TracedRange traced{context.pid, context.el, range.start, range.last_address()};
  TracedRangeCounts& counts = traced_ranges_[traced];
  counts.count += times;
  if (!range.last_taken) return;
  if (!LeavesPending(range)) {
    counts.direct_taken += times;
    counts.direct_target = range.branch_target;
    return;
  }
  const bool indirect = range.last_branch == BranchKind::kIndirect;
  Pending& pending = pending_[id];
  pending.from = traced;
  pending.tid = context.tid;
  pending.indirect = indirect;
  pending.target = std::nullopt;
  if (!indirect) pending.target = locator_.DirectBranchTarget(context, traced.last, range.isa);
  has_pending_.set(id);
}

void BranchProfile::ConsumePath(const Packet& path) {
  const std::span<const Packet> packets = path.path();
  if (has_pending_[path.trace_id]) Resolve(path.trace_id, &packets.front());
  // The last range, and an exception return after it (ETE).
  size_t last = packets.size() - 1;
  if (packets[last].kind != PacketKind::kRange) --last;
  const Packet& last_range = packets[last];
  const bool leaves_pending = LeavesPending(last_range);
  if (leaves_pending) CountRange(path.trace_id, path.context, last_range, 1);
  const std::span<const Packet> counted = leaves_pending ? packets.first(last) : packets;
  if (counted.empty()) return;
  const size_t slot =
      (std::bit_cast<uintptr_t>(counted.data()) / sizeof(Packet) * 0x9e3779b97f4a7c15ULL) >> 54;
  PathCount& count = path_counts_[slot];
  if (count.times != 0 && count.packets.data() == counted.data() &&
      count.packets.size() == counted.size()) {
    ++count.times;
    return;
  }
  if (count.times == 0) {
    used_path_slots_.push_back(slot);
  } else {
    CountPath(count);  // another path's slot
  }
  count = PathCount{counted, 1};
}

void BranchProfile::CountPath(const PathCount& count) {
  // The packets' own context has the pid and el of every replay's.
  for (const Packet& range : count.packets) {
    if (range.kind != PacketKind::kRange) continue;
    CountRange(range.trace_id, range.context, range, count.times);
  }
}

void BranchProfile::CountPaths() {
  for (const size_t slot : used_path_slots_) {
    CountPath(path_counts_[slot]);
    path_counts_[slot] = PathCount{};
  }
  used_path_slots_.clear();
}

absl::Status BranchProfile::Consume(std::span<const Packet> packets) {
  for (const Packet& packet : packets) {
    switch (packet.kind) {
      case PacketKind::kRange:
        if (has_pending_[packet.trace_id]) Resolve(packet.trace_id, &packet);
        CountRange(packet.trace_id, packet.context, packet, 1);
        break;
      case PacketKind::kPath:
        ConsumePath(packet);
        break;
      case PacketKind::kContext:
        // A new thread: the old one's branch target is not the next range.
        if (has_pending_.test(packet.trace_id) &&
            pending_[packet.trace_id].tid != packet.context.tid) {
          Resolve(packet.trace_id, nullptr);
        }
        break;
      case PacketKind::kDiscontinuity:
      case PacketKind::kNoAccess:
        Resolve(packet.trace_id, nullptr);
        break;
      case PacketKind::kException:
      case PacketKind::kExceptionReturn:
        break;
    }
  }
  CountPaths();
  if (traced_ranges_.spilled() + traced_branches_.spilled() >= kMaxTraced) Flush();
  return absl::OkStatus();
}

absl::Status BranchProfile::EndBlock() {
  // In trace id order, as the sources' last branches always were.
  for (size_t id = 0; id < has_pending_.size() && has_pending_.any(); ++id) {
    if (has_pending_.test(id)) Resolve(static_cast<uint8_t>(id), nullptr);
  }
  Flush();
  return absl::OkStatus();
}

void BranchProfile::Resolve(uint8_t id, const Packet* next) {
  if (!has_pending_.test(id)) return;
  has_pending_.reset(id);
  const Pending& pending = pending_[id];
  std::optional<uint64_t> target = pending.target;
  if (!target && next != nullptr) target = next->start;
  ++traced_branches_[TracedBranch{pending.from, target.value_or(0), target.has_value(),
                                  pending.indirect}]
        .n;
}

void BranchProfile::Flush() {
  absl::flat_hash_map<TracedRange, TracedRangeCounts>& ranges = traced_ranges_.Drain();
  for (const auto& [range, counts] : ranges) {
    std::optional<CodeLocation> start = locator_.Locate(ContextOf(range), range.start);
    if (!start) continue;
    const uint64_t last_offset = start->offset + (range.last - range.start);
    Binary& binary = BinaryOf(start->dso);
    binary.ranges[{start->offset, last_offset}] += counts.count;
    if (counts.direct_taken > 0) {
      CountBranch(range, *start, counts.direct_target, /*indirect=*/false, counts.direct_taken);
    }
  }
  absl::flat_hash_map<TracedBranch, Times>& branches = traced_branches_.Drain();
  for (const auto& [branch, times] : branches) {
    std::optional<CodeLocation> start = locator_.Locate(ContextOf(branch.from), branch.from.start);
    if (!start) continue;  // the range was not counted either
    CountBranch(branch.from, *start,
                branch.known ? std::optional<uint64_t>(branch.to) : std::nullopt, branch.indirect,
                times.n);
  }
  ranges.clear();
  branches.clear();
}

void BranchProfile::CountBranch(const TracedRange& from, const CodeLocation& start,
                                const std::optional<uint64_t>& to, bool indirect, uint64_t count) {
  uint64_t to_offset = 0;
  if (to) {
    std::optional<CodeLocation> where = locator_.Locate(ContextOf(from), *to);
    if (where && where->dso == start.dso) to_offset = where->offset;
  }
  const Branch branch{start.offset + (from.last - from.start), to_offset, indirect};
  BinaryOf(start.dso).branches[branch] += count;
}

BranchProfile::Binary& BranchProfile::BinaryOf(const machine::Dso* dso) {
  if (dso != last_dso_ || last_binary_ == nullptr) {
    last_dso_ = dso;
    last_binary_ = &binaries_[dso];
  }
  return *last_binary_;
}

profile::BinaryKey BranchProfile::KeyOf(const machine::Dso& dso) const {
  base::BuildId id = dso.build_id;
  if (id.empty()) {
    auto it = build_ids_.find(dso.name);
    if (it != build_ids_.end()) id = it->second;
  }
  return profile::BinaryKey{dso.name, id.PaddedTo20()};  // as simpleperf writes it
}

profile::Profile BranchProfile::AddUp(absl::Span<const BranchProfile* const> parts,
                                      profile::Format format) const {
  const bool autofdo = format == profile::Format::kAutoFdo;
  std::map<const machine::Dso*, std::vector<const Binary*>> binaries;
  for (const BranchProfile* part : parts) {
    for (const auto& [dso, binary] : part->binaries_) binaries[dso].push_back(&binary);
  }
  profile::Profile out(format);
  // Sorted first, the entries go into the maps at their ends: a map
  // filled in hash order costs a search and a cache miss or two a node.
  std::vector<std::pair<profile::AddressPair, uint64_t>> entries;
  for (const auto& [dso, parts_of_dso] : binaries) {
    const BinaryLayout& layout = LayoutOf(dso);
    auto address = [&](uint64_t offset) {
      return autofdo ? layout.AutoFdoAddress(offset) : layout.Vaddr(offset);
    };
    entries.clear();
    for (const Binary* binary : parts_of_dso) {
      for (const auto& [range, count] : binary->ranges) {
        entries.push_back({{address(range.first), address(range.second)}, count});
      }
    }
    profile::BinaryCounts counts;
    for (const auto& [range, count] : SortedByKey(entries)) {
      uint64_t& sum = profile::EntryOf(counts.ranges, range);
      sum = profile::AddClamped(sum, count);
    }
    entries.clear();
    for (const Binary* binary : parts_of_dso) {
      for (const auto& [branch, count] : binary->branches) {
        // 0: an unknown target, and for AutoFDO (as simpleperf) an indirect one.
        const bool unknown = branch.to == 0 || (autofdo && branch.indirect);
        entries.push_back({{address(branch.from), unknown ? 0 : address(branch.to)}, count});
      }
    }
    for (const auto& [branch, count] : SortedByKey(entries)) {
      profile::BranchCount& sum = profile::EntryOf(counts.branches, branch);
      sum.taken = profile::AddClamped(sum.taken, count);
    }
    if (!autofdo) profile::AddFallThroughs(counts);
    out.Add(KeyOf(*dso), std::move(counts));
  }
  return out;
}

std::string BranchProfile::AutoFdoText() const {
  return profile::AutoFdoText(ToProfile(profile::Format::kAutoFdo));
}

std::string BranchProfile::AutoFdoText(const machine::Dso& dso) const {
  std::string out;
  if (!binaries_.count(&dso)) return out;
  const profile::Profile all = ToProfile(profile::Format::kAutoFdo);
  const profile::BinaryKey key = KeyOf(dso);
  profile::AppendAutoFdoText(key, all.binaries().at(key), out);
  return out;
}

std::string BranchProfile::BoltText(const machine::Dso* dso) const {
  if (dso == nullptr || !binaries_.count(dso)) return "";
  const profile::Profile all = ToProfile(profile::Format::kBolt);
  const profile::BinaryKey key = KeyOf(*dso);
  return profile::BoltText(key, all.binaries().at(key));
}

}  // namespace perftk::cs_etm
