// Branch profiles as AutoFDO and BOLT texts hold them: per binary, how often
// each address range ran straight through and how often each taken branch
// went from one address to another, in the addresses the text's reader
// wants (profile/autofdo_text.h, profile/bolt_text.h).
//
// A binary is its recorded path and build id, so two builds of one path are
// never summed. Counts are summed saturating at kMaxCount, the largest
// count perf2bolt reads (it parses counts as int64_t); how many sums were
// clamped is kept for a warning.
#ifndef PERFTK_PROFILE_PROFILE_H_
#define PERFTK_PROFILE_PROFILE_H_

#include <compare>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "base/build_id.h"

namespace perftk::profile {

enum class Format { kAutoFdo, kBolt };

// "AutoFDO text" or "BOLT pre-aggregated text", for messages.
const char* FormatName(Format format);

inline constexpr uint64_t kMaxCount = std::numeric_limits<int64_t>::max();

struct BinaryKey {
  std::string path;        // as recorded; empty when the text names none (BOLT)
  base::BuildId build_id;  // empty when unknown; texts write it in lower-case hex
  auto operator<=>(const BinaryKey&) const = default;
};

// "PATH (build id ID)", for messages.
std::string Describe(const BinaryKey& key);

using AddressPair = std::pair<uint64_t, uint64_t>;

struct BranchCount {
  uint64_t taken = 0;
  uint64_t mispredicted = 0;  // BOLT only
  bool operator==(const BranchCount&) const = default;
};

struct BinaryCounts {
  std::map<AddressPair, uint64_t> ranges;       // first and last instruction
  std::map<uint64_t, uint64_t> addresses;       // AutoFDO address samples
  std::map<AddressPair, BranchCount> branches;  // from, to (0: unknown)
  bool operator==(const BinaryCounts&) const = default;
};

// The entry of `key` in `map`, made if missing: O(1) when keys come in
// increasing order, as the entries of a text do.
template <typename Map>
typename Map::mapped_type& EntryOf(Map& map, const typename Map::key_type& key) {
  if (map.empty() || map.rbegin()->first < key) {
    return map.emplace_hint(map.end(), key, typename Map::mapped_type{})->second;
  }
  return map[key];
}

class Profile {
 public:
  Profile() = default;
  explicit Profile(Format format) : format_(format) {}

  // Unset for a profile nothing was added to (an empty text).
  std::optional<Format> format() const { return format_; }
  const std::map<BinaryKey, BinaryCounts>& binaries() const { return binaries_; }
  // How many sums reached kMaxCount and were kept there.
  uint64_t saturated() const { return saturated_; }

  void AddRange(const BinaryKey& key, AddressPair range, uint64_t count);
  void AddAddress(const BinaryKey& key, uint64_t address, uint64_t count);
  void AddBranch(const BinaryKey& key, AddressPair branch, BranchCount count);
  // Adds every count of `counts` to the binary `key` (taking `counts`
  // whole when the binary has none yet), saturating.
  void Add(const BinaryKey& key, const BinaryCounts& counts);
  void Add(const BinaryKey& key, BinaryCounts&& counts);
  // Adds `other`; an error (and nothing added) when its format is another.
  // By move, `other` is left empty (unless the format was another).
  absl::Status Add(const Profile& other);
  absl::Status Add(Profile&& other);
  // Keeps the binaries `keep` says yes to.
  void KeepBinaries(const std::function<bool(const BinaryKey&)>& keep);

 private:
  uint64_t Sum(uint64_t a, uint64_t b);
  // An error when `other` is a profile of another format.
  absl::Status CheckFormat(const Profile& other) const;

  std::optional<Format> format_;
  std::map<BinaryKey, BinaryCounts> binaries_;
  uint64_t saturated_ = 0;
};

}  // namespace perftk::profile

#endif  // PERFTK_PROFILE_PROFILE_H_
