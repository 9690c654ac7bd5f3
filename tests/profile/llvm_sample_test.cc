#include "profile/llvm_sample.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace perftk::profile {
namespace {

// A made-up binary at base 0x400000: main at 0x401000 (lines 10..), its
// instructions one a line from line 10, the call at 0x401008 (line 12) and
// a loop line 13 with two discriminators; leaf at 0x402000, lines 40...
class FakeMap : public SourceMap {
 public:
  std::optional<SourceLocation> Locate(uint64_t address) const override {
    if (address >= 0x401000 && address < 0x401020) {
      const uint64_t n = (address - 0x401000) / 4;
      if (n == 4) return SourceLocation{SourceFrame{"main", 3, 1}};  // line 13, discriminator 1
      if (n == 5) return SourceLocation{SourceFrame{"main", 3, 2}};
      if (n == 6) return SourceLocation{SourceFrame{"main", 3, 2}};
      return SourceLocation{SourceFrame{"main", static_cast<uint32_t>(n), 0}};
    }
    if (address >= 0x402000 && address < 0x402010) {
      return SourceLocation{
          SourceFrame{"leaf", static_cast<uint32_t>((address - 0x402000) / 4), 0}};
    }
    return std::nullopt;
  }
  std::optional<std::string> FunctionAt(uint64_t address) const override {
    if (address == 0x401000) return "main";
    if (address == 0x402000) return "leaf";
    return std::nullopt;
  }
  std::vector<std::pair<uint64_t, uint64_t>> FunctionCode(uint64_t address) const override {
    if (address >= 0x401000 && address < 0x401020) return {{0x401000, 0x401020}};
    if (address >= 0x402000 && address < 0x402010) return {{0x402000, 0x402010}};
    return {};
  }
};

TEST(LlvmSampleText, BodiesHeadsAndCallTargets) {
  BinaryCounts counts;
  counts.ranges[{0x1000, 0x1008}] = 1;         // main's first three, the call
  counts.ranges[{0x100c, 0x101c}] = 5;         // after the call, the loop
  counts.ranges[{0x1014, 0x1018}] = 2;         // the loop again: 0x1014 and 0x1018 ran 7 times
  counts.ranges[{0x2000, 0x200c}] = 1;         // leaf
  counts.ranges[{0x9000, 0x9004}] = 50;        // no function: not written
  counts.branches[{0x1008, 0x2000}] = {3, 0};  // main calls leaf
  counts.branches[{0x200c, 0x100c}] = {3, 0};  // the return: no function entry
  counts.branches[{0x1018, 0x1014}] = {2, 0};
  counts.branches[{0x101c, 0}] = {1, 0};  // to an unknown target
  FakeMap map;
  absl::StatusOr<std::string> text = LlvmSampleText(counts, 0x400000, map);
  ASSERT_TRUE(text.ok()) << text.status();
  // main: 1+1+1 (offsets 0-2) + 5 (3) + 5 (3.1) + max(7,7) (3.2) + 5 (7) = 25.
  EXPECT_EQ(*text,
            "main:25:0\n"
            " 0: 1\n"
            " 1: 1\n"
            " 2: 1 leaf:3\n"
            " 3: 5\n"
            " 3.1: 5\n"
            " 3.2: 7\n"
            " 7: 5\n"
            "leaf:4:3\n"
            " 0: 1\n"
            " 1: 1\n"
            " 2: 1\n"
            " 3: 1\n");
}

TEST(LlvmSampleText, LargestCountOfALocationAndOrderByTotal) {
  BinaryCounts counts;
  counts.ranges[{0x2000, 0x2000}] = 9;
  counts.ranges[{0x1000, 0x1000}] = 2;
  FakeMap map;
  absl::StatusOr<std::string> text = LlvmSampleText(counts, 0x400000, map);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(*text,
            "leaf:9:0\n 0: 9\n 1: 0\n 2: 0\n 3: 0\n"
            "main:2:0\n 0: 2\n 1: 0\n 2: 0\n 3: 0\n 3.1: 0\n 3.2: 0\n 7: 0\n");
}

// A location none of whose instructions ran is 0 in a function where some
// ran (clang: never runs), left out (clang: unknown) in one where none ran.
TEST(LlvmSampleText, ZeroWhereNothingRanInAFunctionThatRan) {
  BinaryCounts counts;
  counts.ranges[{0x1000, 0x1004}] = 4;         // main's offsets 0 and 1
  counts.ranges[{0x1014, 0x1014}] = 4;         // one of 3.2's two instructions
  counts.branches[{0x1004, 0x1014}] = {4, 0};  // leaf did not run: not written
  FakeMap map;
  absl::StatusOr<std::string> text = LlvmSampleText(counts, 0x400000, map);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(*text,
            "main:12:0\n"
            " 0: 4\n"
            " 1: 4\n"
            " 2: 0\n"
            " 3: 0\n"
            " 3.1: 0\n"
            " 3.2: 4\n"
            " 7: 0\n");
}

// main (0x401000..) with leaf inlined at line offset 2 (discriminator 1),
// and into leaf, at its line offset 1, tiny: instructions 0x401008 (leaf
// line offset 0), 0x40100c (tiny offset 5), 0x401010 (main offset 4, calls
// leaf's out-of-line copy at 0x402000).
class InliningMap : public SourceMap {
 public:
  std::optional<SourceLocation> Locate(uint64_t address) const override {
    switch (address) {
      case 0x401000:
        return SourceLocation{SourceFrame{"main", 0, 0}};
      case 0x401004:
        return SourceLocation{SourceFrame{"main", 1, 0}};
      case 0x401008:
        return SourceLocation{SourceFrame{"main", 2, 1}, SourceFrame{"leaf", 0, 0}};
      case 0x40100c:
        return SourceLocation{SourceFrame{"main", 2, 1}, SourceFrame{"leaf", 1, 0},
                              SourceFrame{"tiny", 5, 0}};
      case 0x401010:
        return SourceLocation{SourceFrame{"main", 4, 0}};
      case 0x402000:
        return SourceLocation{SourceFrame{"leaf", 0, 0}};
      default:
        return std::nullopt;
    }
  }
  std::optional<std::string> FunctionAt(uint64_t address) const override {
    if (address == 0x402000) return "leaf";
    return std::nullopt;
  }
  std::vector<std::pair<uint64_t, uint64_t>> FunctionCode(uint64_t address) const override {
    if (address >= 0x401000 && address < 0x401014) return {{0x401000, 0x401014}};
    if (address == 0x402000) return {{0x402000, 0x402004}};
    return {};
  }
};

TEST(LlvmSampleText, InlinedCodeInNestedProfiles) {
  BinaryCounts counts;
  counts.ranges[{0x1000, 0x1010}] = 3;
  counts.ranges[{0x2000, 0x2000}] = 2;
  counts.branches[{0x1010, 0x2000}] = {2, 0};
  InliningMap map;
  absl::StatusOr<std::string> text = LlvmSampleText(counts, 0x400000, map);
  ASSERT_TRUE(text.ok()) << text.status();
  // main: 3 + 3 + 3 (offset 4) + leaf inlined (3 + tiny's 3) = 15.
  EXPECT_EQ(*text,
            "main:15:0\n"
            " 0: 3\n"
            " 1: 3\n"
            " 4: 3 leaf:2\n"
            " 2.1: leaf:6\n"
            "  0: 3\n"
            "  1: tiny:3\n"
            "   5: 3\n"
            "leaf:2:2\n"
            " 0: 2\n");
}

// An unrolled loop: line 3 of main, its body copied 4 times (duplication
// factor 4, each copy running a quarter as often) at 0x401000..0x40100c,
// and its remainder once (no factor) at 0x401010; line 5 at 0x401014.
class UnrolledMap : public SourceMap {
 public:
  std::optional<SourceLocation> Locate(uint64_t address) const override {
    if (address >= 0x401000 && address < 0x401010)
      return SourceLocation{SourceFrame{"main", 3, 1, 4}};
    if (address == 0x401010) return SourceLocation{SourceFrame{"main", 3, 1}};
    if (address == 0x401014) return SourceLocation{SourceFrame{"main", 5, 0}};
    if (address == 0x402000) {
      return SourceLocation{SourceFrame{"main", 7, 0}, SourceFrame{"leaf", 1, 0, 3}};
    }
    return std::nullopt;
  }
  std::optional<std::string> FunctionAt(uint64_t) const override { return std::nullopt; }
  std::vector<std::pair<uint64_t, uint64_t>> FunctionCode(uint64_t address) const override {
    if ((address >= 0x401000 && address < 0x401018) || address == 0x402000) {
      return {{0x401000, 0x401018}, {0x402000, 0x402004}};
    }
    return {};
  }
};

TEST(LlvmSampleText, CountsTimesTheDuplicationFactor) {
  BinaryCounts counts;
  counts.ranges[{0x1000, 0x100c}] = 25;  // 25 passes through the unrolled copies
  counts.ranges[{0x1010, 0x1014}] = 3;   // 3 through the remainder
  counts.ranges[{0x2000, 0x2000}] = 6;   // inlined code: its own frame's factor
  UnrolledMap map;
  absl::StatusOr<std::string> text = LlvmSampleText(counts, 0x400000, map);
  ASSERT_TRUE(text.ok()) << text.status();
  // 3.1: max(25 * 4, 3) = 100; 5: 3; leaf's 1: 6 * 3 = 18.
  EXPECT_EQ(*text,
            "main:121:0\n"
            " 3.1: 100\n"
            " 5: 3\n"
            " 7: leaf:18\n"
            "  1: 18\n");
}

TEST(LlvmSampleText, NothingLocatedIsEmpty) {
  BinaryCounts counts;
  counts.ranges[{0x9000, 0x9010}] = 4;
  FakeMap map;
  absl::StatusOr<std::string> text = LlvmSampleText(counts, 0x400000, map);
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, "");
}

TEST(LlvmSampleText, BackwardRangeIsAnError) {
  BinaryCounts counts;
  counts.ranges[{0x1010, 0x1000}] = 1;
  FakeMap map;
  EXPECT_FALSE(LlvmSampleText(counts, 0x400000, map).ok());
}

}  // namespace
}  // namespace perftk::profile
