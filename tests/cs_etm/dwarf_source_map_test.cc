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
