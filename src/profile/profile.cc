#include "profile/profile.h"

#include <iterator>
#include <utility>

#include "absl/strings/str_cat.h"

namespace perftk::profile {

const char* FormatName(Format format) {
  return format == Format::kAutoFdo ? "AutoFDO text" : "BOLT pre-aggregated text";
}

std::string Describe(const BinaryKey& key) {
  return absl::StrCat(key.path.empty() ? "a binary" : key.path, " (build id ",
                      key.build_id.empty() ? "unknown" : key.build_id.ToHex(), ")");
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

namespace {

// Calls add(entry of `into`, value) for every entry of `from`, making the
// missing ones. Both are sorted: a cursor walks `into` alongside, so a sum
// of similar profiles costs a linear walk, not a search per entry.
template <typename Map, typename AddValue>
void AddSorted(Map& into, const Map& from, AddValue add) {
  auto cursor = into.begin();
  for (const auto& [key, value] : from) {
    int steps = 0;
    while (cursor != into.end() && cursor->first < key && ++steps <= 8) ++cursor;
    if (cursor != into.end() && cursor->first < key) cursor = into.lower_bound(key);
    if (cursor == into.end() || key < cursor->first) {
      cursor = into.emplace_hint(cursor, key, typename Map::mapped_type{});
    }
    add(cursor->second, value);
    ++cursor;
  }
}

}  // namespace

void Profile::Add(const BinaryKey& key, const BinaryCounts& counts) {
  BinaryCounts& into = binaries_[key];
  AddSorted(into.ranges, counts.ranges,
            [this](uint64_t& sum, uint64_t count) { sum = Sum(sum, count); });
  AddSorted(into.addresses, counts.addresses,
            [this](uint64_t& sum, uint64_t count) { sum = Sum(sum, count); });
  AddSorted(into.branches, counts.branches, [this](BranchCount& sum, const BranchCount& count) {
    sum.taken = Sum(sum.taken, count.taken);
    sum.mispredicted = Sum(sum.mispredicted, count.mispredicted);
  });
}

void Profile::Add(const BinaryKey& key, BinaryCounts&& counts) {
  auto [it, added] = binaries_.try_emplace(key);
  if (!added) {
    Add(key, static_cast<const BinaryCounts&>(counts));
    return;
  }
  // Taken whole, each count saturated as a sum into nothing would be.
  it->second = std::move(counts);
  for (auto& [range, count] : it->second.ranges) count = Sum(0, count);
  for (auto& [address, count] : it->second.addresses) count = Sum(0, count);
  for (auto& [branch, count] : it->second.branches) {
    count.taken = Sum(0, count.taken);
    count.mispredicted = Sum(0, count.mispredicted);
  }
}

absl::Status Profile::CheckFormat(const Profile& other) const {
  if (other.format_ && format_ && *other.format_ != *format_) {
    return absl::InvalidArgumentError(absl::StrCat("a ", FormatName(*other.format_),
                                                   " cannot be added to a ", FormatName(*format_)));
  }
  return absl::OkStatus();
}

absl::Status Profile::Add(const Profile& other) {
  if (absl::Status s = CheckFormat(other); !s.ok()) return s;
  if (other.format_) format_ = other.format_;
  for (const auto& [key, counts] : other.binaries_) Add(key, counts);
  saturated_ += other.saturated_;
  return absl::OkStatus();
}

absl::Status Profile::Add(Profile&& other) {
  if (&other == this) return Add(static_cast<const Profile&>(other));
  if (absl::Status s = CheckFormat(other); !s.ok()) return s;
  if (other.format_) format_ = other.format_;
  if (binaries_.empty()) {
    binaries_ = std::move(other.binaries_);  // its counts are saturated already
  } else {
    for (auto& [key, counts] : other.binaries_) Add(key, std::move(counts));
  }
  saturated_ += other.saturated_;
  other = Profile();
  return absl::OkStatus();
}

void Profile::KeepBinaries(const std::function<bool(const BinaryKey&)>& keep) {
  for (auto it = binaries_.begin(); it != binaries_.end();) {
    it = keep(it->first) ? std::next(it) : binaries_.erase(it);
  }
}

}  // namespace perftk::profile
