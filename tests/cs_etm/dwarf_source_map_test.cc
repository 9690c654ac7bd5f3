#include "cs_etm/dwarf_source_map.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "gtest/gtest.h"

namespace perftk::cs_etm {
namespace {

// clang writes LLVM's encoded discriminators: the base discriminator, the
// duplication factor and the copy id from the low bits, each a 1 when
// empty, else a 0 and 5 bits (7 in all, bit 6 clear) or 12 (14 in all, bit
// 6 set). The line tables of Lua built with -fdebug-info-for-profiling
// hold 2, 4, 6, 9, 2050...; zlib's 1e04 (base 2, its code copied 30 times
// by unrolling D_CODES' loop).
TEST(DwarfSourceMap, BaseDiscriminator) {
  EXPECT_EQ(DwarfSourceMap::BaseDiscriminator(0), 0u);
  EXPECT_EQ(DwarfSourceMap::BaseDiscriminator(2), 1u);
  EXPECT_EQ(DwarfSourceMap::BaseDiscriminator(4), 2u);
  EXPECT_EQ(DwarfSourceMap::BaseDiscriminator(6), 3u);
  EXPECT_EQ(DwarfSourceMap::BaseDiscriminator(9), 0u);       // odd: no base discriminator
  EXPECT_EQ(DwarfSourceMap::BaseDiscriminator(2050), 1u);    // 1 plus a duplication factor
  EXPECT_EQ(DwarfSourceMap::BaseDiscriminator(0xd0), 40u);   // 14 bits
  EXPECT_EQ(DwarfSourceMap::BaseDiscriminator(0x140), 64u);  // 14 bits, bit 7 clear
  // 3, no duplication factor (one bit), copy id 1: bit 7 is the empty
  // factor's, not the base's.
  EXPECT_EQ(DwarfSourceMap::BaseDiscriminator(0x286), 3u);
  EXPECT_EQ(DwarfSourceMap::BaseDiscriminator(0x1e04), 2u);
}

TEST(DwarfSourceMap, DuplicationFactor) {
  EXPECT_EQ(DwarfSourceMap::DuplicationFactor(0), 1u);  // none
  EXPECT_EQ(DwarfSourceMap::DuplicationFactor(2), 1u);  // a base discriminator only
  EXPECT_EQ(DwarfSourceMap::DuplicationFactor(9), 2u);  // no base discriminator, then 2
  EXPECT_EQ(DwarfSourceMap::DuplicationFactor(2050), 8u);
  EXPECT_EQ(DwarfSourceMap::DuplicationFactor(0x1e04), 30u);
  EXPECT_EQ(DwarfSourceMap::DuplicationFactor(0x4d), 19u);
  EXPECT_EQ(DwarfSourceMap::DuplicationFactor(0xa002), 64u);  // base 1, factor in 14 bits
  EXPECT_EQ(DwarfSourceMap::DuplicationFactor(0x286), 1u);    // empty factor, copy id 1
  EXPECT_EQ(DwarfSourceMap::DuplicationFactor(0x1880a), 8u);  // base 5, 8, copy id 3
}

TEST(DwarfSourceMap, RefusesWhatIsNotAnElfWithDwarf) {
  EXPECT_FALSE(DwarfSourceMap::Open("/nonexistent/binary").ok());
  absl::StatusOr<std::unique_ptr<DwarfSourceMap>> text =
      DwarfSourceMap::Open(std::string(PERFTK_SOURCE_DIR) + "/README.md");
  ASSERT_FALSE(text.ok());
  EXPECT_NE(text.status().message().find("not an ELF"), std::string::npos) << text.status();
}

// A host binary built by cc -O2 -g: leaf (first line 1, body line 2)
// inlined into outer (first line 4) at line 6.
class DwarfSourceMapBinaryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "/dwarf_source_map_test." + std::to_string(getpid());
    std::filesystem::create_directories(dir_);
    std::ofstream(dir_ + "/p.c")
        << "static inline __attribute__((always_inline)) int leaf(int x) {\n"
           "  return x * x * 3 + 1;\n"
           "}\n"
           "__attribute__((noinline)) int outer(int x) {\n"
           "  int y = x + 7;\n"
           "  return leaf(y) ^ y;\n"
           "}\n"
           "int main(int argc, char** argv) { (void)argv; return outer(argc); }\n";
    const std::string cc = "cc -O2 -g -o " + dir_ + "/p " + dir_ + "/p.c";
    ASSERT_EQ(std::system(cc.c_str()), 0) << cc;
    FILE* nm = popen(("nm " + dir_ + "/p").c_str(), "r");
    ASSERT_NE(nm, nullptr);
    char line[256];
    while (fgets(line, sizeof line, nm) != nullptr) {
      unsigned long address = 0;
      char type = 0;
      char name[128] = {};
      if (std::sscanf(line, "%lx %c %127s", &address, &type, name) == 3 &&
          std::string(name) == "outer") {
        outer_ = address;
      }
    }
    pclose(nm);
    ASSERT_NE(outer_, 0u);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string dir_;
  uint64_t outer_ = 0;
};

TEST_F(DwarfSourceMapBinaryTest, FramesOfInlinedCode) {
  absl::StatusOr<std::unique_ptr<DwarfSourceMap>> map = DwarfSourceMap::Open(dir_ + "/p");
  ASSERT_TRUE(map.ok()) << map.status();
  EXPECT_EQ((*map)->FunctionAt(outer_), "outer");
  EXPECT_EQ((*map)->FunctionAt(outer_ + 1), std::nullopt);
  std::optional<profile::SourceLocation> entry = (*map)->Locate(outer_);
  ASSERT_TRUE(entry.has_value());
  ASSERT_EQ(entry->size(), 1u);
  EXPECT_EQ(entry->front().function, "outer");
  EXPECT_EQ(entry->front().line_offset, 1u);  // line 5
  bool inlined = false;
  for (uint64_t at = outer_; at < outer_ + 16; ++at) {  // x86: any byte may start one
    std::optional<profile::SourceLocation> where = (*map)->Locate(at);
    if (!where.has_value()) continue;
    EXPECT_EQ(where->front().function, "outer") << std::hex << at;
    if (where->size() == 2) {
      inlined = true;
      EXPECT_EQ((*where)[0].line_offset, 2u);  // called at line 6
      EXPECT_EQ((*where)[1].function, "leaf");
      EXPECT_EQ((*where)[1].line_offset, 1u);  // line 2
    }
  }
  EXPECT_TRUE(inlined) << "no instruction of outer is in the inlined leaf";
}

}  // namespace
}  // namespace perftk::cs_etm
