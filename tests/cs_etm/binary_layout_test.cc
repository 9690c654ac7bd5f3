// BinaryLayout: file offsets of a binary turned into the addresses AutoFDO
// and BOLT read, on the program headers of a binary linked by lld for
// aarch64 (clang -fuse-ld=lld: .text at file offset 0x35c, vaddr 0x1035c).
#include "cs_etm/profile.h"
#include "gtest/gtest.h"

namespace perftk::cs_etm {
namespace {

BinaryLayout LldLayout() {
  BinaryLayout layout;
  layout.loads = {{0x0, 0x0, 0x35c}, {0x35c, 0x1035c, 0x10}, {0x370, 0x20370, 0x90}};
  return layout;
}

TEST(BinaryLayout, OffsetsInTheCodeLoadMoveByItsDelta) {
  const BinaryLayout layout = LldLayout();
  EXPECT_EQ(layout.Vaddr(0x35c), 0x1035cu);
  EXPECT_EQ(layout.Vaddr(0x368), 0x10368u);
  EXPECT_EQ(layout.AutoFdoAddress(0x368), 0x10368u);  // the first load is at vaddr 0
  EXPECT_EQ(layout.Vaddr(0x100), 0x100u);             // in the first load
}

TEST(BinaryLayout, AutoFdoAddressesCountFromTheFirstLoad) {
  BinaryLayout layout;
  layout.loads = {{0x0, 0x400000, 0x1000}, {0x1000, 0x401000, 0x2000}};  // ET_EXEC
  EXPECT_EQ(layout.Vaddr(0x1234), 0x401234u);
  EXPECT_EQ(layout.AutoFdoAddress(0x1234), 0x1234u);
}

TEST(BinaryLayout, WithoutLoadsOffsetsStay) {
  EXPECT_EQ(BinaryLayout{}.Vaddr(0x1234), 0x1234u);
  EXPECT_EQ(BinaryLayout{}.AutoFdoAddress(0x1234), 0x1234u);
}

TEST(BinaryLayout, AnOffsetOutsideEveryLoadKeepsTheFirstLoadsDelta) {
  BinaryLayout layout;
  layout.loads = {{0x0, 0x10000, 0x100}};
  EXPECT_EQ(layout.Vaddr(0x5000), 0x15000u);
}

}  // namespace
}  // namespace perftk::cs_etm
