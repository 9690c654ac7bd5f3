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
// of a direct A64 branch is read from the instruction itself; otherwise it
// is the start of the next range of the same thread when that follows
// without a break. A target outside the binary, or unknown, is 0.
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
#include <bitset>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "absl/container/flat_hash_map.h"
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
  absl::Status EndBlock() override;

  // Build ids by recorded file name, for binaries whose MMAP2 had none.
  void SetBuildIds(BuildIdsByPath build_ids) { build_ids_ = std::move(build_ids); }
  // Layouts of binaries for the texts; a binary without one keeps offsets.
  void SetLayouts(std::map<const machine::Dso*, BinaryLayout> layouts) {
    layouts_ = std::move(layouts);
  }
  // Adds the counts of `other`, a profile of other blocks.
  void Add(const BranchProfile& other);
  // Every binary's counts as `format`'s text gives them: AutoFDO addresses
  // with indirect targets as 0, or BOLT's virtual addresses with their real
  // targets; keyed by recorded path and build id.
  profile::Profile ToProfile(profile::Format format) const;
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
  struct Pending {
    PacketContext context;
    const machine::Dso* dso = nullptr;
    uint64_t from = 0;
    bool indirect = false;
    std::optional<uint64_t> target;  // runtime address, known for direct branches
  };
  // Resolves a pending branch of trace source `id` to `next` (null: a break).
  void Resolve(uint8_t id, const Packet* next);
  void Count(const machine::Dso* dso, const Branch& branch);
  // The counts of `dso`, from a one-entry cache.
  Binary& BinaryOf(const machine::Dso* dso);

  CodeLocator& locator_;
  const BinaryLayout& LayoutOf(const machine::Dso* dso) const;

  BuildIdsByPath build_ids_;
  std::map<const machine::Dso*, BinaryLayout> layouts_;
  // Branches waiting for the next range of their trace source, by id.
  std::array<Pending, 256> pending_;
  std::bitset<256> has_pending_;
  std::map<const machine::Dso*, Binary> binaries_;
  const machine::Dso* last_dso_ = nullptr;
  Binary* last_binary_ = nullptr;
};

}  // namespace perftk::cs_etm

#endif  // PERFTK_CS_ETM_PROFILE_H_
