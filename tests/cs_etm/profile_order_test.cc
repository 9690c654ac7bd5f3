// The AutoFDO text lists binaries by path and build id, not in the order
// their Dsos were allocated: two runs (or --jobs 1 and 2) print the same
// bytes.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cs_etm/profile.h"
#include "gtest/gtest.h"

namespace perftk::cs_etm {
namespace {

// Addresses 0x1000 * (k + 1) .. + 0x1000 are in binary k, at offset 0.
class ByPage : public CodeLocator {
 public:
  explicit ByPage(std::vector<const machine::Dso*> dsos) : dsos_(std::move(dsos)) {}
  std::optional<CodeLocation> Locate(const PacketContext&, uint64_t address) override {
    size_t k = address / 0x1000 - 1;
    if (k >= dsos_.size()) return std::nullopt;
    return CodeLocation{dsos_[k], address % 0x1000};
  }
  std::optional<uint64_t> DirectBranchTarget(const PacketContext&, uint64_t, Isa) override {
    return std::nullopt;
  }

 private:
  std::vector<const machine::Dso*> dsos_;
};

// Allocates the named binaries in the given order; counts one range in
// each, the k-th name at page k + 1 of `names` order.
std::string ProfileWithAllocationOrder(const std::vector<std::string>& names,
                                       const std::vector<size_t>& allocation_order) {
  std::vector<std::unique_ptr<machine::Dso>> owned(names.size());
  for (size_t i : allocation_order) {
    owned[i] = std::make_unique<machine::Dso>(machine::Dso{names[i], base::BuildId(), {}, false});
  }
  std::vector<const machine::Dso*> dsos;
  for (const auto& dso : owned) dsos.push_back(dso.get());
  ByPage locator(dsos);
  BranchProfile profile(locator);
  std::vector<Packet> packets;
  for (size_t i = 0; i < names.size(); ++i) {
    Packet range;
    range.start = 0x1000 * (i + 1) + 0x10;
    range.end = range.start + 8;
    packets.push_back(range);
  }
  EXPECT_TRUE(profile.Consume(packets).ok());
  EXPECT_TRUE(profile.EndBlock().ok());
  return profile.AutoFdoText();
}

TEST(ProfileOrder, BinariesAreListedByPathWhateverTheirAllocationOrder) {
  const std::vector<std::string> names = {"/usr/lib/libz.so", "/bin/app", "/usr/lib/liba.so"};
  std::string forward = ProfileWithAllocationOrder(names, {0, 1, 2});
  std::string backward = ProfileWithAllocationOrder(names, {2, 1, 0});
  std::string mixed = ProfileWithAllocationOrder(names, {1, 2, 0});
  EXPECT_EQ(forward, backward);
  EXPECT_EQ(forward, mixed);
  size_t app = forward.find("// /bin/app"), liba = forward.find("// /usr/lib/liba.so"),
         libz = forward.find("// /usr/lib/libz.so");
  ASSERT_NE(libz, std::string::npos);
  EXPECT_LT(app, liba);
  EXPECT_LT(liba, libz);
}

}  // namespace
}  // namespace perftk::cs_etm
