#include "profile/profile.h"

#include <iterator>

#include "absl/strings/str_cat.h"

namespace perftk::profile {

const char* FormatName(Format format) {
  return format == Format::kAutoFdo ? "AutoFDO text" : "BOLT pre-aggregated text";
}

std::string Describe(const BinaryKey& key) {
  return absl::StrCat(key.path.empty() ? "a binary" : key.path, " (build id ",
                      key.build_id.empty() ? "unknown" : key.build_id, ")");
}

uint64_t Profile::Sum(uint64_t a, uint64_t b) {
  if (a > kMaxCount) a = kMaxCount;
  if (b > kMaxCount - a) {
    ++saturated_;
    return kMaxCount;
  }
  return a + b;
}

void Profile::AddRange(const BinaryKey& key, AddressPair range, uint64_t count) {
  uint64_t& into = binaries_[key].ranges[range];
  into = Sum(into, count);
}

void Profile::AddAddress(const BinaryKey& key, uint64_t address, uint64_t count) {
  uint64_t& into = binaries_[key].addresses[address];
  into = Sum(into, count);
}

void Profile::AddBranch(const BinaryKey& key, AddressPair branch, BranchCount count) {
  BranchCount& into = binaries_[key].branches[branch];
  into.taken = Sum(into.taken, count.taken);
  into.mispredicted = Sum(into.mispredicted, count.mispredicted);
}

void Profile::Add(const BinaryKey& key, const BinaryCounts& counts) {
  BinaryCounts& into = binaries_[key];
  // Entries new to `into` are inserted at their place without a search.
  for (const auto& [range, count] : counts.ranges) {
    auto it = into.ranges.lower_bound(range);
    if (it == into.ranges.end() || it->first != range) {
      into.ranges.emplace_hint(it, range, Sum(0, count));
    } else {
      it->second = Sum(it->second, count);
    }
  }
  for (const auto& [address, count] : counts.addresses) {
    uint64_t& sum = into.addresses[address];
    sum = Sum(sum, count);
  }
  for (const auto& [branch, count] : counts.branches) {
    auto it = into.branches.lower_bound(branch);
    if (it == into.branches.end() || it->first != branch) {
      it = into.branches.emplace_hint(it, branch, BranchCount{});
    }
    it->second.taken = Sum(it->second.taken, count.taken);
    it->second.mispredicted = Sum(it->second.mispredicted, count.mispredicted);
  }
}

absl::Status Profile::Add(const Profile& other) {
  if (other.format_ && format_ && *other.format_ != *format_) {
    return absl::InvalidArgumentError(absl::StrCat("a ", FormatName(*other.format_),
                                                   " cannot be added to a ",
                                                   FormatName(*format_)));
  }
  if (other.format_) format_ = other.format_;
  for (const auto& [key, counts] : other.binaries_) Add(key, counts);
  saturated_ += other.saturated_;
  return absl::OkStatus();
}

void Profile::KeepBinaries(const std::function<bool(const BinaryKey&)>& keep) {
  for (auto it = binaries_.begin(); it != binaries_.end();) {
    it = keep(it->first) ? std::next(it) : binaries_.erase(it);
  }
}

}  // namespace perftk::profile
