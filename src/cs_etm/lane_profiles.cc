#include "cs_etm/lane_profiles.h"

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <set>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "elf/elf_file.h"

namespace perftk::cs_etm {
namespace {

// The locator of the profile that adds the lanes' profiles up: it never
// sees a packet.
class NoCode : public CodeLocator {
 public:
  std::optional<CodeLocation> Locate(const PacketContext&, uint64_t) override {
    return std::nullopt;
  }
  std::optional<uint64_t> DirectBranchTarget(const PacketContext&, uint64_t, Isa) override {
    return std::nullopt;
  }
};

std::map<const machine::Dso*, BinaryLayout> LayoutsOf(
    const std::vector<const BranchProfile*>& lanes, BinaryImages& images) {
  std::set<const machine::Dso*> dsos;
  for (const BranchProfile* lane : lanes) {
    for (const auto& entry : lane->binaries()) dsos.insert(entry.first);
  }
  std::map<const machine::Dso*, BinaryLayout> layouts;
  for (const machine::Dso* dso : dsos) {
    if (dso->kernel_space) {
      // With a kcore the .ko is read for its layout alone (found or not, the
      // code came from the kcore; its warnings were taken before this).
      const Image* module = images.Find(*dso);
      if (module != nullptr && module->module) {
        const uint64_t text = module->module->text_start();
        layouts[dso].loads.push_back({text, 0, std::numeric_limits<uint64_t>::max() - text});
      } else if (const KernelCode* code = absl::StartsWith(dso->name, "[kernel.kallsyms")
                                              ? images.Kernel(*dso)
                                              : nullptr;
                 code != nullptr && !code->image.is_core()) {
        const uint64_t first = code->image.first_load_vaddr();
        layouts[dso].loads.push_back({first, first, std::numeric_limits<uint64_t>::max() - first});
      }
      continue;
    }
    const Image* image = images.Find(*dso);
    if (image == nullptr) continue;
    absl::StatusOr<std::unique_ptr<elf::ElfFile>> elf = elf::ElfFile::Open(image->path);
    if (!elf.ok()) continue;
    BinaryLayout& layout = layouts[dso];
    for (const elf::Segment& segment : (*elf)->segments()) {
      if (segment.type == PT_LOAD) {
        layout.loads.push_back({segment.offset, segment.vaddr, segment.file_size});
      }
    }
  }
  return layouts;
}

}  // namespace

profile::Profile AddUpLaneProfiles(const std::vector<const BranchProfile*>& lanes,
                                   const perf::BuildIdsByPath& build_ids, BinaryImages& images,
                                   profile::Format format) {
  NoCode no_code;
  BranchProfile sum(no_code);
  sum.SetBuildIds(build_ids);
  sum.SetLayouts(LayoutsOf(lanes, images));
  return sum.AddUp(lanes, format);
}

}  // namespace perftk::cs_etm
