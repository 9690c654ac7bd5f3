#include "base/malloc_arenas.h"

#include <gtest/gtest.h>

namespace perftk::base {
namespace {

constexpr uint64_t kMB = uint64_t{1} << 20;

TEST(ArenasThatFit, HalfTheFreeAddressSpaceAt128MBAnArena) {
  EXPECT_EQ(ArenasThatFit(600 * kMB, 16), 2);
  EXPECT_EQ(ArenasThatFit(2048 * kMB, 16), 8);
}

TEST(ArenasThatFit, TheMainArenaAloneWhenNoOtherFits) {
  EXPECT_EQ(ArenasThatFit(0, 16), 1);
  EXPECT_EQ(ArenasThatFit(150 * kMB, 16), 1);
  EXPECT_EQ(ArenasThatFit(300 * kMB, 16), 1);
}

TEST(ArenasThatFit, NothingChangesWhereGlibcsOwnCapFits) {
  EXPECT_EQ(ArenasThatFit(4096 * kMB, 16), std::nullopt);
  EXPECT_EQ(ArenasThatFit(uint64_t{1} << 50, 16), std::nullopt);
  EXPECT_EQ(ArenasThatFit(4095 * kMB, 16), 15);
}

}  // namespace
}  // namespace perftk::base
