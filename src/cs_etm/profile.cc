#include "cs_etm/profile.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace perftk::cs_etm {

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

absl::Status BranchProfile::Consume(std::span<const Packet> packets) {
  for (const Packet& packet : packets) {
    switch (packet.kind) {
      case PacketKind::kRange: {
        Resolve(packet.trace_id, &packet);
        std::optional<CodeLocation> start = locator_.Locate(packet.context, packet.start);
        if (!start) break;
        uint64_t last = packet.last_address();
        uint64_t last_offset = start->offset + (last - packet.start);
        ++binaries_[start->dso].ranges[{start->offset, last_offset}];
        if (packet.last_taken) {
          Pending pending;
          pending.context = packet.context;
          pending.dso = start->dso;
          pending.from = last_offset;
          pending.indirect = packet.last_branch == BranchKind::kIndirect;
          if (!pending.indirect) {
            pending.target = locator_.DirectBranchTarget(packet.context, last, packet.isa);
          }
          pending_[packet.trace_id] = pending;
        }
        break;
      }
      case PacketKind::kContext:
        // A new thread: the old one's branch target is not the next range.
        if (auto it = pending_.find(packet.trace_id);
            it != pending_.end() && it->second.context.tid != packet.context.tid) {
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
  return absl::OkStatus();
}

void BranchProfile::Add(const BranchProfile& other) {
  for (const auto& [dso, binary] : other.binaries_) {
    Binary& mine = binaries_[dso];
    for (const auto& [range, count] : binary.ranges) mine.ranges[range] += count;
    for (const auto& [branch, count] : binary.branches) mine.branches[branch] += count;
  }
}

absl::Status BranchProfile::EndBlock() {
  while (!pending_.empty()) Resolve(pending_.begin()->first, nullptr);
  return absl::OkStatus();
}

void BranchProfile::Resolve(uint8_t id, const Packet* next) {
  auto it = pending_.find(id);
  if (it == pending_.end()) return;
  Pending pending = it->second;
  pending_.erase(it);
  std::optional<uint64_t> target = pending.target;
  if (!target && next != nullptr) target = next->start;
  uint64_t to = 0;
  if (target) {
    std::optional<CodeLocation> where = locator_.Locate(pending.context, *target);
    if (where && where->dso == pending.dso) to = where->offset;
  }
  Count(pending.dso, Branch{pending.from, to, pending.indirect});
}

void BranchProfile::Count(const machine::Dso* dso, const Branch& branch) {
  ++binaries_[dso].branches[branch];
}

namespace {

std::string BuildIdHex(const machine::Dso& dso,
                       const std::map<std::string, std::string>& build_ids) {
  std::string id = dso.build_id;
  if (id.empty()) {
    auto it = build_ids.find(dso.name);
    if (it != build_ids.end()) id = it->second;
  }
  if (id.empty()) return "";
  id.resize(20, '\0');
  return absl::StrCat("0x", absl::BytesToHexString(id));
}

}  // namespace

std::string BranchProfile::AutoFdoText() const {
  // By path, then build id: the same counts give the same bytes whatever
  // order the binaries were met (or allocated) in.
  std::vector<std::pair<std::pair<std::string, std::string>, const machine::Dso*>> order;
  order.reserve(binaries_.size());
  for (const auto& [dso, binary] : binaries_) {
    order.push_back({{dso->name, BuildIdHex(*dso, build_ids_)}, dso});
  }
  std::sort(order.begin(), order.end());
  std::string out;
  for (const auto& [key, dso] : order) AppendAutoFdo(*dso, binaries_.at(dso), out);
  return out;
}

std::string BranchProfile::AutoFdoText(const machine::Dso& dso) const {
  std::string out;
  auto it = binaries_.find(&dso);
  if (it != binaries_.end()) AppendAutoFdo(dso, it->second, out);
  return out;
}

void BranchProfile::AppendAutoFdo(const machine::Dso& dso, const Binary& binary,
                                  std::string& out) const {
  const BinaryLayout& layout = LayoutOf(&dso);
  std::map<std::pair<uint64_t, uint64_t>, uint64_t> ranges;
  for (const auto& [range, count] : binary.ranges) {
    ranges[{layout.AutoFdoAddress(range.first), layout.AutoFdoAddress(range.second)}] += count;
  }
  absl::StrAppend(&out, ranges.size(), "\n");
  for (const auto& [range, count] : ranges) {
    absl::StrAppendFormat(&out, "%x-%x:%d\n", range.first, range.second, count);
  }
  absl::StrAppend(&out, "0\n");
  std::map<std::pair<uint64_t, uint64_t>, uint64_t> branches;
  for (const auto& [branch, count] : binary.branches) {
    // 0: an indirect or unknown target, written as such.
    const uint64_t to = branch.indirect || branch.to == 0 ? 0 : layout.AutoFdoAddress(branch.to);
    branches[{layout.AutoFdoAddress(branch.from), to}] += count;
  }
  absl::StrAppend(&out, branches.size(), "\n");
  for (const auto& [branch, count] : branches) {
    absl::StrAppendFormat(&out, "%x->%x:%d\n", branch.first, branch.second, count);
  }
  std::string build_id = BuildIdHex(dso, build_ids_);
  if (!build_id.empty()) absl::StrAppend(&out, "// build_id: ", build_id, "\n");
  absl::StrAppend(&out, "// ", dso.name, "\n\n");
}

std::string BranchProfile::BoltText(const machine::Dso* dso) const {
  std::string out;
  auto it = binaries_.find(dso);
  if (it == binaries_.end()) return out;
  const Binary& binary = it->second;
  const BinaryLayout& layout = LayoutOf(dso);
  std::map<std::pair<uint64_t, uint64_t>, uint64_t> ranges;
  for (const auto& [range, count] : binary.ranges) {
    ranges[{layout.Vaddr(range.first), layout.Vaddr(range.second)}] += count;
  }
  for (const auto& [range, count] : ranges) {
    absl::StrAppendFormat(&out, "F %x %x %d\n", range.first, range.second, count);
  }
  std::map<std::pair<uint64_t, uint64_t>, uint64_t> branches;
  for (const auto& [branch, count] : binary.branches) {
    const uint64_t to = branch.to == 0 ? 0 : layout.Vaddr(branch.to);  // 0: unknown
    branches[{layout.Vaddr(branch.from), to}] += count;
  }
  for (const auto& [branch, count] : branches) {
    absl::StrAppendFormat(&out, "B %x %x %d 0\n", branch.first, branch.second, count);
  }
  return out;
}

}  // namespace perftk::cs_etm
