// Aggregated control flow per binary, for AutoFDO and BOLT: how often each
// address range ran straight through, and how often each taken branch went
// from one address to another. Counts are kept by file offset in the binary
// (map.DsoAddress), so profiles of one binary from several processes add up.
//
// Texts give addresses as their readers want them (BinaryLayout): AutoFDO
// the ELF virtual address minus the first PT_LOAD's (its text reader adds
// that back: AutoFDO's symbol_map.cc/profile.cc; simpleperf writes the same),
// BOLT the virtual address (the addresses of the binary given to perf2bolt).
// For a binary whose loads all have vaddr = offset, both are the offset.
//
// Built from the decoder's packets: every range counts once; a range whose
// last instruction is a taken branch adds a branch to its target. The target
// of a direct A64 branch is the packet's (the fast decoder read it) or read
// from the instruction itself; otherwise it is the start of the next range
// of the same thread when that follows without a break. A target outside
// the binary, or unknown, is 0.
//
// Counting comes first, by runtime address in each address space; the
// counts find their binaries and offsets once per distinct range and branch,
// at the end of each block (Flush), while the machine model still holds the
// block's maps.
//
// Output formats:
//   - AutoFDO text (simpleperf inject --output autofdo, read by
//     create_llvm_prof --profiler=text): per binary, the count of ranges then
//     "start-end:count" lines, "0" (no address samples), the count of
//     branches then "from->to:count" lines, then "// build_id: 0x..." and
//     "// path". As simpleperf does, an indirect branch's target is written
//     as 0. create_llvm_prof (AutoFDO 0.19, profile.cc) reads a branch's
//     target only to count entries into a function's start (head counts,
//     call targets): a function entered only by BLR has none from this
//     text, but has them from the perf.data route. It reads only the first
//     binary of a text (sample_reader.cc), so AutoFdoText(dso) writes one;
//   - BOLT pre-aggregated text (perf2bolt --pa) of one binary: "F start end
//     count" and "B from to count 0" lines and nothing else, with indirect
//     branches' real targets. bolt-16 reads every line as a B, F or f entry
//     (no comments, no binary names: DataAggregator::parseAggregatedLBREntry)
//     and takes the numbers as addresses in the binary given to perf2bolt,
//     so one text holds one binary. An address may be written ID:ADDRESS,
//     ID the build id of its object (perf2bolt leaves the id aside): the
//     first line's first address names the binary's build id so
//     (profile/bolt_text.h), for merge-profiles. Its F lines add to the
//     ranges the fall-through of each branch not taken (AddFallThroughs):
//     BOLT counts fall-through edges only inside an F line.
// Both list entries sorted by address. The texts are written by src/profile
// from ToProfile, so a decoded profile and a merge of decoded profiles
// (perftk merge-profiles) are the same bytes.
#ifndef PERFTK_CS_ETM_PROFILE_H_
#define PERFTK_CS_ETM_PROFILE_H_

#include <array>
#include <bit>
#include <bitset>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "cs_etm/counting_cache.h"
#include "cs_etm/packet.h"
#include "machine/dso.h"
#include "perf/features.h"
#include "profile/profile.h"

namespace perftk::cs_etm {

// The PT_LOAD segments of a binary, to turn file offsets into addresses.
// Without loads (no image, the kernel) an offset is kept as it is; an offset
// outside every load keeps its distance to the first one's vaddr.
struct BinaryLayout {
  struct Load {
    uint64_t offset = 0;
    uint64_t vaddr = 0;
    uint64_t file_size = 0;
  };
  std::vector<Load> loads;  // in program header order

  uint64_t Vaddr(uint64_t offset) const;
  // Vaddr(offset) minus the first load's vaddr: AutoFDO's text addresses.
  uint64_t AutoFdoAddress(uint64_t offset) const;
};

// Where an address is: which binary, and the file offset in it.
struct CodeLocation {
  const machine::Dso* dso = nullptr;
  uint64_t offset = 0;
};

class CodeLocator {
 public:
  virtual ~CodeLocator() = default;
  virtual std::optional<CodeLocation> Locate(const PacketContext& context, uint64_t address) = 0;
  // The target of the direct branch at `address`, if it can be read.
  virtual std::optional<uint64_t> DirectBranchTarget(const PacketContext& context, uint64_t address,
                                                     Isa isa) = 0;
};

class BranchProfile : public PacketSink {
 public:
  explicit BranchProfile(CodeLocator& locator) : locator_(locator) {}

  absl::Status Consume(std::span<const Packet> packets) override;
  // A replayed path is counted once per batch for all its ranges.
  bool TakesPaths() const override { return true; }
  // Resolves the pending branches and flushes.
  absl::Status EndBlock() override;
  // Turns the counts by runtime address into counts by binary and offset,
  // with the locator as it is now. The lane calls it at the end of every
  // block, before the model may change.
  void Flush();

  // Build ids by recorded file name, for binaries whose MMAP2 had none.
  void SetBuildIds(perf::BuildIdsByPath build_ids) { build_ids_ = std::move(build_ids); }
  // Layouts of binaries for the texts; a binary without one keeps offsets.
  void SetLayouts(std::map<const machine::Dso*, BinaryLayout> layouts) {
    layouts_ = std::move(layouts);
  }
  // Every binary's counts as `format`'s text gives them: AutoFDO addresses
  // with indirect targets as 0, or BOLT's virtual addresses with their real
  // targets; keyed by recorded path and build id.
  profile::Profile ToProfile(profile::Format format) const { return AddUp({this}, format); }
  // The counts of `parts` (profiles of other blocks) added up, as
  // ToProfile gives them, with this profile's build ids and layouts (its
  // own counts are not in it unless it is one of them).
  profile::Profile AddUp(absl::Span<const BranchProfile* const> parts,
                         profile::Format format) const;
  // The key of `dso` in ToProfile.
  profile::BinaryKey KeyOf(const machine::Dso& dso) const;
  // Every binary's AutoFDO text, ordered by path, then build id.
  std::string AutoFdoText() const;
  // The AutoFDO text of `dso` alone (empty for a binary without trace).
  // create_llvm_prof reads only the first binary of a text.
  std::string AutoFdoText(const machine::Dso& dso) const;
  // The BOLT text of `dso` (empty for null or a binary without trace).
  std::string BoltText(const machine::Dso* dso) const;

  struct Branch {
    uint64_t from = 0;
    uint64_t to = 0;
    bool indirect = false;
    auto operator<=>(const Branch&) const = default;
    template <typename H>
    friend H AbslHashValue(H h, const Branch& b) {
      return H::combine(std::move(h), b.from, b.to, b.indirect);
    }
  };
  // Counts by file offsets, unordered (ToProfile orders them).
  struct Binary {
    absl::flat_hash_map<std::pair<uint64_t, uint64_t>, uint64_t> ranges;
    absl::flat_hash_map<Branch, uint64_t> branches;
  };
  const std::map<const machine::Dso*, Binary>& binaries() const { return binaries_; }

 private:
  // A range [start, last] by runtime address, in the address space of pid
  // and el (what the locator looks at).
  struct TracedRange {
    int32_t pid = 0;
    int8_t el = 0;
    uint64_t start = 0;
    uint64_t last = 0;  // the address of the last instruction
    bool operator==(const TracedRange&) const = default;
    template <typename H>
    friend H AbslHashValue(H h, const TracedRange& r) {
      return H::combine(std::move(h), r.pid, r.el, r.start, r.last);
    }
  };
  struct TracedRangeCounts {
    uint64_t count = 0;
    uint64_t direct_taken = 0;   // taken to a target the packet gave
    uint64_t direct_target = 0;  // runtime; the same for every such packet
    void Add(const TracedRangeCounts& other) {
      count += other.count;
      if (other.direct_taken == 0) return;
      direct_taken += other.direct_taken;
      direct_target = other.direct_target;
    }
  };
  struct TracedRangeSlot {
    uint64_t operator()(const TracedRange& r) const {
      return (r.start ^ std::rotl(r.last, 29) ^ (uint64_t{static_cast<uint32_t>(r.pid)} << 40) ^
              static_cast<uint8_t>(r.el)) *
             0x9e3779b97f4a7c15ULL;
    }
  };
  // A taken branch from a range's last instruction to a runtime address.
  struct TracedBranch {
    TracedRange from;
    uint64_t to = 0;
    bool known = false;  // `to` is known
    bool indirect = false;
    bool operator==(const TracedBranch&) const = default;
    template <typename H>
    friend H AbslHashValue(H h, const TracedBranch& b) {
      return H::combine(std::move(h), b.from, b.to, b.known, b.indirect);
    }
  };
  struct TracedBranchSlot {
    uint64_t operator()(const TracedBranch& b) const {
      return TracedRangeSlot{}(b.from) ^ (std::rotl(b.to, 17) * 0xc2b2ae3d27d4eb4fULL);
    }
  };
  struct Times {
    uint64_t n = 0;
    void Add(const Times& other) { n += other.n; }
  };
  struct Pending {
    TracedRange from;
    int32_t tid = 0;
    bool indirect = false;
    std::optional<uint64_t> target;  // runtime address, known for direct branches
  };
  // Flushed within a block once this many ranges and branches wait.
  static constexpr size_t kMaxTraced = size_t{1} << 16;

  static PacketContext ContextOf(const TracedRange& range) {
    return PacketContext{.pid = range.pid, .tid = -1, .el = range.el};
  }
  // Resolves a pending branch of trace source `id` to `next` (null: a break).
  void Resolve(uint8_t id, const Packet* next);
  // Counts `range` (from a packet of `context`, trace source `id`) `times`
  // times; a taken branch whose target the next range gives waits in
  // pending_ (then `times` must be 1).
  void CountRange(uint8_t id, const PacketContext& context, const Packet& range, uint64_t times);
  // A kPath packet: its first range resolves what waits, its ranges are
  // counted in path_counts_ (CountPaths), its last range may leave a
  // branch waiting. In a path only the last range can (a branch whose
  // target comes later ends the decoder's path).
  void ConsumePath(const Packet& path);
  struct PathCount;
  // Counts the ranges of `count`'s path its times.
  void CountPath(const PathCount& count);
  // Counts the ranges of the paths in path_counts_, and empties it.
  void CountPaths();
  // Counts a branch from `from`, located at `start`, to the runtime
  // address `to` (null: unknown) `count` times.
  void CountBranch(const TracedRange& from, const CodeLocation& start,
                   const std::optional<uint64_t>& to, bool indirect, uint64_t count);
  // The counts of `dso`, from a one-entry cache.
  Binary& BinaryOf(const machine::Dso* dso);

  CodeLocator& locator_;
  const BinaryLayout& LayoutOf(const machine::Dso* dso) const;

  perf::BuildIdsByPath build_ids_;
  std::map<const machine::Dso*, BinaryLayout> layouts_;
  // Branches waiting for the next range of their trace source, by id.
  std::array<Pending, 256> pending_;
  std::bitset<256> has_pending_;
  // Counted, not yet located (Flush).
  CountingCache<TracedRange, TracedRangeCounts, TracedRangeSlot> traced_ranges_;
  CountingCache<TracedBranch, Times, TracedBranchSlot> traced_branches_;
  // The paths of the current Consume call, by where their packets are:
  // counted for their ranges at its end.
  struct PathCount {
    std::span<const Packet> packets;
    uint64_t times = 0;
  };
  static constexpr size_t kPathSlots = 1024;
  std::vector<PathCount> path_counts_ = std::vector<PathCount>(kPathSlots);
  std::vector<size_t> used_path_slots_;
  std::map<const machine::Dso*, Binary> binaries_;
  const machine::Dso* last_dso_ = nullptr;
  Binary* last_binary_ = nullptr;
};

}  // namespace perftk::cs_etm

#endif  // PERFTK_CS_ETM_PROFILE_H_
