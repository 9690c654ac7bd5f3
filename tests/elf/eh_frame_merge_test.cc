// EhFrameMerger on tables shaped as V8 writes them into a jitdump, and on
// tables it must refuse.
#include "elf/eh_frame_merge.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "../testing/v8_eh_frame.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace perftk::elf {
namespace {

using ::testing::HasSubstr;

using ::perftk::testing::TableShape;
using ::perftk::testing::V8Table;

uint32_t Get32(const std::vector<std::byte>& in, size_t at) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(in.at(at + i)) << (8 * i);
  return v;
}

struct Decoded {
  uint64_t cie_offset;  // of the FDE's CIE
  uint64_t pc_begin, pc_range;
};

// The FDEs of a merged little-endian .eh_frame at `address` (pcrel sdata4).
std::vector<Decoded> DecodeFdes(const std::vector<std::byte>& eh_frame, uint64_t address) {
  std::vector<Decoded> out;
  size_t pos = 0;
  while (pos + 4 <= eh_frame.size()) {
    uint32_t length = Get32(eh_frame, pos);
    if (length == 0) break;
    EXPECT_EQ((length + 4) % 4, 0u) << "record at " << pos;
    uint32_t id = Get32(eh_frame, pos + 4);
    if (id != 0) {
      int32_t value = static_cast<int32_t>(Get32(eh_frame, pos + 8));
      out.push_back({pos + 4 - id, address + pos + 8 + value, Get32(eh_frame, pos + 12)});
    }
    pos += 4 + length;
  }
  EXPECT_EQ(pos + 4, eh_frame.size()) << "one terminator at the end";
  return out;
}

TEST(EhFrameMerger, FdesPointAtTheCodesNewAddresses) {
  EhFrameMerger merger(true, false);
  std::vector<std::byte> a = V8Table(0x180), b = V8Table(0x51);
  ASSERT_TRUE(merger.Add(a, 0x180, 0x80).ok());
  ASSERT_TRUE(merger.Add(b, 0x51, 0x200).ok());
  EXPECT_EQ(merger.fde_count(), 2u);
  std::vector<std::byte> eh_frame, hdr;
  const uint64_t at = 0x1000;
  ASSERT_TRUE(merger.Write(at, eh_frame, hdr).ok());
  EXPECT_EQ(eh_frame.size(), merger.eh_frame_size());
  std::vector<Decoded> fdes = DecodeFdes(eh_frame, at);
  ASSERT_EQ(fdes.size(), 2u);
  EXPECT_EQ(fdes[0].pc_begin, 0x80u);
  EXPECT_EQ(fdes[0].pc_range, 0x180u - 2);
  EXPECT_EQ(fdes[1].pc_begin, 0x200u);
  EXPECT_EQ(fdes[1].pc_range, 0x51u - 2);
  // Each FDE names its own load's CIE, a copy of the input's.
  EXPECT_EQ(fdes[0].cie_offset, 0u);
  EXPECT_EQ(fdes[1].cie_offset, 0x18u + 0x14);
  EXPECT_TRUE(std::equal(a.begin(), a.begin() + 0x18, eh_frame.begin()));
  EXPECT_TRUE(std::equal(b.begin(), b.begin() + 0x18, eh_frame.begin() + 0x2c));
}

TEST(EhFrameMerger, FdeStartingInsideTheCodeKeepsItsOffset) {
  EhFrameMerger merger(true, false);
  ASSERT_TRUE(
      merger.Add(V8Table(0x100, {.fde_start = 0x10, .fde_range_cut = 0x20}), 0x100, 0x4000).ok());
  std::vector<std::byte> eh_frame, hdr;
  ASSERT_TRUE(merger.Write(0x9000, eh_frame, hdr).ok());
  std::vector<Decoded> fdes = DecodeFdes(eh_frame, 0x9000);
  ASSERT_EQ(fdes.size(), 1u);
  EXPECT_EQ(fdes[0].pc_begin, 0x4010u);
}

TEST(EhFrameMerger, HeaderPointsAtTheTableAndHasNoSearchTable) {
  EhFrameMerger merger(true, false);
  ASSERT_TRUE(merger.Add(V8Table(0x40), 0x40, 0x80).ok());
  std::vector<std::byte> eh_frame, hdr;
  ASSERT_TRUE(merger.Write(0x2000, eh_frame, hdr).ok());
  ASSERT_EQ(hdr.size(), 8u);
  EXPECT_EQ(static_cast<int>(hdr[0]), 1);
  EXPECT_EQ(static_cast<int>(hdr[1]), kEhPePcrelSdata4);
  EXPECT_EQ(static_cast<int>(hdr[2]), kEhPeOmit);
  EXPECT_EQ(static_cast<int>(hdr[3]), kEhPeOmit);
  uint64_t hdr_at = 0x2000 + eh_frame.size();
  EXPECT_EQ(hdr_at + 4 + static_cast<int32_t>(Get32(hdr, 4)), 0x2000u);
}

TEST(EhFrameMerger, EmptyTablesGiveATerminatorOnly) {
  EhFrameMerger merger(true, false);
  ASSERT_TRUE(merger.Add({}, 0x40, 0x80).ok());
  std::vector<std::byte> eh_frame, hdr;
  ASSERT_TRUE(merger.Write(0x100, eh_frame, hdr).ok());
  EXPECT_EQ(eh_frame, std::vector<std::byte>(4));
  EXPECT_EQ(merger.fde_count(), 0u);
}

TEST(EhFrameMerger, VersionOneAndPlainZRAreRead) {
  EhFrameMerger merger(true, false);
  EXPECT_TRUE(merger.Add(V8Table(0x40, {.version = 1}), 0x40, 0x80).ok());
  EXPECT_TRUE(merger.Add(V8Table(0x40, {.augmentation = "zR"}), 0x40, 0x100).ok());
  EXPECT_EQ(merger.fde_count(), 2u);
}

// Tables it cannot rewrite are refused with the offset named, and leave
// nothing behind.
TEST(EhFrameMerger, RefusesWhatItCannotRewrite) {
  struct Case {
    std::string what;
    std::vector<std::byte> table;
    std::string message;
  };
  std::vector<std::byte> truncated = V8Table(0x40);
  truncated.resize(0x18 + 10);
  std::vector<std::byte> bad_cie_pointer = V8Table(0x40);
  bad_cie_pointer[0x18 + 4] = std::byte{0x20};  // past the CIE
  std::vector<std::byte> dwarf64 = V8Table(0x40);
  for (int i = 0; i < 4; ++i) dwarf64[i] = std::byte{0xff};
  std::vector<Case> cases = {
      {"version 4", V8Table(0x40, {.version = 4}), "offset 0: CIE version 4"},
      {"personality", V8Table(0x40, {.augmentation = "zPLR"}), "'P' is not supported"},
      {"no z", V8Table(0x40, {.augmentation = "eh"}), "not readable"},
      {"lsda", V8Table(0x40, {.lsda_encoding = 0x1b}), "LSDA"},
      {"absolute", V8Table(0x40, {.fde_encoding = 0x03}), "encoding 0x3"},
      {"uleb", V8Table(0x40, {.fde_encoding = 0x11}), "encoding 0x11"},
      {"outside", V8Table(0x40, {.fde_start = 0x30, .fde_range_cut = 0}),
       "offset 0x18: FDE covers"},
      {"before", V8Table(0x40, {.fde_start = -8}), "outside its 64 bytes"},
      {"truncated", truncated, "offset 0x18: record length"},
      {"cie pointer", bad_cie_pointer, "names no CIE"},
      {"dwarf64", dwarf64, "64-bit"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    EhFrameMerger merger(true, false);
    ASSERT_TRUE(merger.Add(V8Table(0x20), 0x20, 0x80).ok());
    uint64_t size = merger.eh_frame_size();
    absl::Status s = merger.Add(c.table, 0x40, 0x100);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(s.message(), HasSubstr(".eh_frame offset "));
    EXPECT_THAT(s.message(), HasSubstr(c.message));
    EXPECT_EQ(merger.fde_count(), 1u);
    EXPECT_EQ(merger.eh_frame_size(), size);
  }
}

TEST(EhFrameMerger, FdeOutOfReachIsAnError) {
  EhFrameMerger merger(true, false);
  ASSERT_TRUE(merger.Add(V8Table(0x40), 0x40, 0x80).ok());
  std::vector<std::byte> eh_frame, hdr;
  absl::Status s = merger.Write(uint64_t{1} << 40, eh_frame, hdr);
  EXPECT_EQ(s.code(), absl::StatusCode::kOutOfRange);
  EXPECT_THAT(s.message(), HasSubstr("out of reach"));
}

}  // namespace
}  // namespace perftk::elf
