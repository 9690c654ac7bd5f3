#include "cs_etm/code_blocks.h"

#include <cstdint>
#include <vector>

#include "gtest/gtest.h"

namespace perftk::cs_etm {
namespace {

// Instruction words (llvm-mc 16, -triple=aarch64).
constexpr uint32_t kNop = 0xd503201fu;
constexpr uint32_t kAdd = 0x8b020020u;   // add x0, x1, x2
constexpr uint32_t kBeq = 0x54000100u;   // b.eq #0x20
constexpr uint32_t kBack = 0x17fffffeu;  // b #-0x8
constexpr uint32_t kBl = 0x94000400u;    // bl #0x1000
constexpr uint32_t kRet = 0xd65f03c0u;   // ret
constexpr uint32_t kIsb = 0xd5033fdfu;   // isb
constexpr uint32_t kWfi = 0xd503207fu;   // wfi

std::vector<uint8_t> Code(std::initializer_list<uint32_t> words) {
  std::vector<uint8_t> bytes;
  for (uint32_t w : words) {
    for (int i = 0; i < 4; ++i) bytes.push_back(static_cast<uint8_t>(w >> (8 * i)));
  }
  return bytes;
}

CodeSpan SpanAt(const std::vector<uint8_t>& code, uint64_t offset, const void* image = nullptr) {
  return CodeSpan{image != nullptr ? image : &code, offset,
                  std::span<const uint8_t>(code).subspan(offset)};
}

TEST(CodeBlockCache, ABlockEndsAtTheFirstWaypoint) {
  const std::vector<uint8_t> code = Code({kAdd, kNop, kBeq, kAdd, kRet});
  CodeBlockCache cache(A64TraceFeatures{});
  CodeBlock block = cache.Find(SpanAt(code, 0));
  EXPECT_EQ(block.instructions, 3u);
  EXPECT_EQ(block.last.waypoint, A64Waypoint::kDirectBranch);
  EXPECT_TRUE(block.last.conditional);
  EXPECT_FALSE(block.span_ended);
  EXPECT_EQ(block.target_delta, 0x20);

  block = cache.Find(SpanAt(code, 12));  // after the b.eq
  EXPECT_EQ(block.instructions, 2u);
  EXPECT_EQ(block.last.waypoint, A64Waypoint::kIndirectBranch);
  EXPECT_EQ(block.last.role, A64BranchRole::kReturn);
}

TEST(CodeBlockCache, TargetsAreRelativeToTheBranch) {
  const std::vector<uint8_t> code = Code({kNop, kBack, kBl});
  CodeBlockCache cache(A64TraceFeatures{});
  EXPECT_EQ(cache.Find(SpanAt(code, 0)).target_delta, -8);
  CodeBlock call = cache.Find(SpanAt(code, 8));
  EXPECT_EQ(call.instructions, 1u);
  EXPECT_EQ(call.last.role, A64BranchRole::kLink);
  EXPECT_EQ(call.target_delta, 0x1000);
}

TEST(CodeBlockCache, TheFarthestBranchesKeepTheirTargets) {
  // B and BL reach 2^25 words either way: +-128 MB.
  constexpr uint32_t kBFarthestBack = 0x14000000 | (1u << 25);     // b .-128MB
  constexpr uint32_t kBlFarthestAhead = 0x94000000 | 0x01ffffffu;  // bl .+128MB-4
  const std::vector<uint8_t> code = Code({kBFarthestBack, kBlFarthestAhead});
  CodeBlockCache cache(A64TraceFeatures{});
  EXPECT_EQ(cache.Find(SpanAt(code, 0)).target_delta, -(int64_t{1} << 27));
  EXPECT_EQ(cache.Find(SpanAt(code, 4)).target_delta, (int64_t{1} << 27) - 4);
}

TEST(CodeBlockCache, IsbIsAWaypointWfiOnlyWhenTracedAsABranch) {
  const std::vector<uint8_t> code = Code({kNop, kWfi, kNop, kIsb, kRet});
  CodeBlockCache plain(A64TraceFeatures{});
  CodeBlock block = plain.Find(SpanAt(code, 0));
  EXPECT_EQ(block.instructions, 4u);
  EXPECT_EQ(block.last.waypoint, A64Waypoint::kIsb);
  CodeBlockCache wfx(A64TraceFeatures{.wfi_wfe_branches = true});
  block = wfx.Find(SpanAt(code, 0));
  EXPECT_EQ(block.instructions, 2u);
  EXPECT_EQ(block.last.waypoint, A64Waypoint::kWfiWfe);
}

TEST(CodeBlockCache, ABlockStopsAtTheEndOfItsSpan) {
  const std::vector<uint8_t> code = Code({kNop, kAdd, kNop});
  CodeBlockCache cache(A64TraceFeatures{});
  CodeBlock block = cache.Find(SpanAt(code, 4));
  EXPECT_EQ(block.instructions, 2u);
  EXPECT_TRUE(block.span_ended);
  EXPECT_EQ(block.last.waypoint, A64Waypoint::kNone);
  // Fewer than four bytes: no instruction.
  block = cache.Find(CodeSpan{&code, 10, std::span<const uint8_t>(code).subspan(10)});
  EXPECT_EQ(block.instructions, 0u);
  EXPECT_TRUE(block.span_ended);
}

TEST(CodeBlockCache, TheSecondLookupIsAHit) {
  const std::vector<uint8_t> code = Code({kAdd, kAdd, kRet});
  CodeBlockCache cache(A64TraceFeatures{});
  cache.Find(SpanAt(code, 0));
  cache.Find(SpanAt(code, 0));
  cache.Find(SpanAt(code, 4));
  EXPECT_EQ(cache.walks(), 2u);
  EXPECT_EQ(cache.hits(), 1u);
}

TEST(CodeBlockCache, AShorterOrLongerSpanIsWalkedAgain) {
  const std::vector<uint8_t> code = Code({kAdd, kAdd, kAdd, kRet});
  CodeBlockCache cache(A64TraceFeatures{});
  const std::span<const uint8_t> all(code);
  // Through a mapping that ends before the ret.
  CodeBlock block = cache.Find(CodeSpan{&code, 0, all.first(8)});
  EXPECT_TRUE(block.span_ended);
  EXPECT_EQ(block.instructions, 2u);
  // The whole code: the ret is now in reach.
  block = cache.Find(CodeSpan{&code, 0, all});
  EXPECT_FALSE(block.span_ended);
  EXPECT_EQ(block.instructions, 4u);
  // A span ending before the cached block's waypoint.
  block = cache.Find(CodeSpan{&code, 0, all.first(12)});
  EXPECT_TRUE(block.span_ended);
  EXPECT_EQ(block.instructions, 3u);
  EXPECT_EQ(cache.walks(), 3u);
  // The same short span again is a hit.
  EXPECT_EQ(cache.Find(CodeSpan{&code, 0, all.first(12)}).instructions, 3u);
  EXPECT_EQ(cache.walks(), 3u);
  // A span ending later does not move a waypoint the block reaches.
  cache.Find(CodeSpan{&code, 0, all});
  std::vector<uint8_t> longer = code;
  longer.resize(code.size() + 64);
  EXPECT_EQ(cache.Find(CodeSpan{&code, 0, std::span<const uint8_t>(longer)}).instructions, 4u);
  EXPECT_EQ(cache.walks(), 4u);
}

TEST(CodeBlockCache, ImagesDoNotShareBlocks) {
  const std::vector<uint8_t> one = Code({kRet});
  const std::vector<uint8_t> two = Code({kAdd, kRet});
  CodeBlockCache cache(A64TraceFeatures{});
  EXPECT_EQ(cache.Find(SpanAt(one, 0)).instructions, 1u);
  EXPECT_EQ(cache.Find(SpanAt(two, 0)).instructions, 2u);
}

TEST(CodeBlockCache, AFullCacheStartsOver) {
  const std::vector<uint8_t> code = Code({kAdd, kAdd, kAdd, kAdd, kRet});
  CodeBlockCache cache(A64TraceFeatures{}, /*max_blocks=*/3);
  for (uint64_t offset = 0; offset < code.size(); offset += 4) {
    EXPECT_EQ(cache.Find(SpanAt(code, offset)).instructions, 5 - offset / 4);
    EXPECT_LE(cache.size(), 3u);
  }
  EXPECT_EQ(cache.walks(), 5u);
}

}  // namespace
}  // namespace perftk::cs_etm
