#include "cs_etm/dwarf_source_map.h"

#include <string>

#include "gtest/gtest.h"

namespace perftk::cs_etm {
namespace {

// clang writes LLVM's encoded discriminators: the base discriminator in a
// prefix encoding (even: 7 bits after the flag; odd: none), duplication
// factor and copy id above it. The line tables of Lua built with
// -fdebug-info-for-profiling hold 2, 4, 6, 9, 2050...
TEST(DwarfSourceMap, BaseDiscriminator) {
  EXPECT_EQ(DwarfSourceMap::BaseDiscriminator(0), 0u);
  EXPECT_EQ(DwarfSourceMap::BaseDiscriminator(2), 1u);
  EXPECT_EQ(DwarfSourceMap::BaseDiscriminator(4), 2u);
  EXPECT_EQ(DwarfSourceMap::BaseDiscriminator(6), 3u);
  EXPECT_EQ(DwarfSourceMap::BaseDiscriminator(9), 0u);     // odd: no base discriminator
  EXPECT_EQ(DwarfSourceMap::BaseDiscriminator(2050), 1u);  // 1 plus a duplication factor
  EXPECT_EQ(DwarfSourceMap::BaseDiscriminator(0x7e), 0x3fu);
}

TEST(DwarfSourceMap, RefusesWhatIsNotAnElfWithDwarf) {
  EXPECT_FALSE(DwarfSourceMap::Open("/nonexistent/binary").ok());
  absl::StatusOr<std::unique_ptr<DwarfSourceMap>> text =
      DwarfSourceMap::Open(std::string(PERFTK_SOURCE_DIR) + "/README.md");
  ASSERT_FALSE(text.ok());
  EXPECT_NE(text.status().message().find("not an ELF"), std::string::npos) << text.status();
}

}  // namespace
}  // namespace perftk::cs_etm
