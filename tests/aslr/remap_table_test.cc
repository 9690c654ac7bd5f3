#include "aslr/remap_table.h"

#include <gtest/gtest.h>

namespace perftk::aslr {
namespace {

constexpr uint64_t kPage = 4096;
int machine_a, machine_b;  // stand-ins for machine identities
const RemapTable::Space kProcess{&machine_a, 100};
const RemapTable::Space kOtherProcess{&machine_a, 200};
const RemapTable::Space kKernel{&machine_a, RemapTable::kKernelPid};
int libc, prog;  // stand-ins for dsos

TEST(RemapTableTest, FirstPlacementsStartAtTheBasesAndKeepPageOffsets) {
  RemapTable table;
  EXPECT_EQ(table.PlaceFile(kProcess, &prog, 0x55d0c0001000, 0x3000, 0x1000, false),
            RemapTable::kUserBase);
  EXPECT_EQ(table.PlaceMemory(kKernel, 0xffffffff81000000, 0x1000000, false),
            RemapTable::kKernelBase64);
  RemapTable table32(kPage, /*kernel_is_64bit=*/false);
  EXPECT_EQ(table32.PlaceMemory(kKernel, 0xc1000000, 0x100000, false), RemapTable::kKernelBase32);
  // A ksymbol inside a page keeps its offset in the page.
  EXPECT_EQ(table.PlaceMemory(kKernel, 0xffffffffc0123456, 0x100, false) % kPage, 0x456u);
}

TEST(RemapTableTest, OffsetsInsideAMappingAreKept) {
  RemapTable table;
  uint64_t placed = table.PlaceFile(kProcess, &prog, 0x55d0c0001000, 0x3000, 0x1000, false);
  EXPECT_EQ(table.TranslateFile(kProcess, &prog, 0x55d0c0001000, 0x1000, 0x55d0c0002abc),
            placed + 0x1abc);
}

TEST(RemapTableTest, PiecesOfOneFilePlacementShareOneTranslation) {
  RemapTable table;
  // The text and data segments of one mmap of a file, and a piece split off
  // by an mprotect (pgoff advanced with the start).
  uint64_t text = table.PlaceFile(kProcess, &libc, 0x7f0000026000, 0x156000, 0x26000, false);
  uint64_t piece = table.PlaceFile(kProcess, &libc, 0x7f0000100000, 0x10000, 0x100000, false);
  EXPECT_EQ(piece - text, 0x7f0000100000 - 0x7f0000026000);
  // The same file mapped again elsewhere is another placement.
  uint64_t again = table.PlaceFile(kProcess, &libc, 0x7f1000026000, 0x156000, 0x26000, false);
  EXPECT_GE(again, text + 0x156000);
}

TEST(RemapTableTest, ContiguousMappingsStayContiguousOthersGetAGap) {
  RemapTable table;
  uint64_t first = table.PlaceFile(kProcess, &prog, 0x400000, 0x1000, 0, false);
  // Continues the previous one in the original: right after it.
  uint64_t next = table.PlaceMemory(kProcess, 0x401000, 0x2000, /*contiguous=*/true);
  EXPECT_EQ(next, first + 0x1000);
  // Not contiguous: one page of gap.
  uint64_t far = table.PlaceMemory(kProcess, 0x500000, 0x1000, false);
  EXPECT_EQ(far, next + 0x2000 + kPage);
  // Claims contiguity with an original neighbour that was not the last
  // placement: a gap all the same, so no two placements touch by accident.
  uint64_t late = table.PlaceMemory(kProcess, 0x403000, 0x1000, true);
  EXPECT_EQ(late, far + 0x1000 + kPage);
}

TEST(RemapTableTest, PlacementsOfDifferentProcessesNeverOverlap) {
  RemapTable table;
  uint64_t a = table.PlaceFile(kProcess, &libc, 0x7f0000000000, 0x200000, 0, false);
  uint64_t b = table.PlaceFile(kOtherProcess, &libc, 0x7f5000000000, 0x200000, 0, false);
  EXPECT_TRUE(b >= a + 0x200000 || a >= b + 0x200000);
}

TEST(RemapTableTest, TheSameObjectAtTheSamePlaceMovesAlikeInEveryProcess) {
  RemapTable table;
  // A non-PIE program at its link address in two processes.
  uint64_t a = table.PlaceFile(kProcess, &prog, 0x401000, 0x1000, 0x1000, false);
  uint64_t b = table.PlaceFile(kOtherProcess, &prog, 0x401000, 0x1000, 0x1000, false);
  EXPECT_EQ(a, b);
  // Anonymous memory with the same range too (a forked child's heap).
  uint64_t heap_a = table.PlaceMemory(kProcess, 0x405000, 0x21000, false);
  uint64_t heap_b = table.PlaceMemory(kOtherProcess, 0x405000, 0x21000, false);
  EXPECT_EQ(heap_a, heap_b);
}

TEST(RemapTableTest, MemoryRangesSplitLikeVmas) {
  RemapTable table;
  uint64_t big = table.PlaceMemory(kProcess, 0x10000000, 0x10000, false);
  uint64_t hole = table.PlaceMemory(kProcess, 0x10004000, 0x2000, false);
  EXPECT_EQ(table.TranslateMemory(kProcess, 0x10001000), big + 0x1000);
  EXPECT_EQ(table.TranslateMemory(kProcess, 0x10004010), hole + 0x10);
  EXPECT_EQ(table.TranslateMemory(kProcess, 0x1000a000), big + 0xa000);
  EXPECT_EQ(table.TranslateMemory(kProcess, 0x10010000), std::nullopt);
  EXPECT_EQ(table.TranslateMemory(kOtherProcess, 0x10001000), std::nullopt);
}

TEST(RemapTableTest, ForkCopiesMemoryRanges) {
  RemapTable table;
  uint64_t stack = table.PlaceMemory(kProcess, 0x7ffd00000000, 0x21000, false);
  table.Fork(kProcess, kOtherProcess);
  EXPECT_EQ(table.TranslateMemory(kOtherProcess, 0x7ffd00000010), stack + 0x10);
  // The child's later mappings are its own.
  uint64_t child = table.PlaceMemory(kOtherProcess, 0x7ffe00000000, 0x1000, false);
  EXPECT_EQ(table.TranslateMemory(kOtherProcess, 0x7ffe00000010), child + 0x10);
  EXPECT_EQ(table.TranslateMemory(kProcess, 0x7ffe00000010), std::nullopt);
}

TEST(RemapTableTest, MachinesHaveSeparateArenas) {
  RemapTable table;
  const RemapTable::Space guest{&machine_b, 100};
  EXPECT_EQ(table.PlaceFile(kProcess, &prog, 0x401000, 0x1000, 0, false), RemapTable::kUserBase);
  EXPECT_EQ(table.PlaceFile(guest, &prog, 0x401000, 0x1000, 0, false), RemapTable::kUserBase);
  EXPECT_EQ(table.TranslateFile(guest, &libc, 0x401000, 0, 0x401000), std::nullopt);
}

TEST(RemapTableTest, UnknownAddressesGetDistinctStableSubstitutes) {
  RemapTable table;
  uint64_t a = table.SubstituteUnknown(0x7f1234567abc, false);
  uint64_t b = table.SubstituteUnknown(0x7f1234568abc, false);
  uint64_t k = table.SubstituteUnknown(0xffffffffa0001234, true);
  EXPECT_EQ(a, RemapTable::kUnknownUserBase + 0xabc);
  EXPECT_EQ(b, RemapTable::kUnknownUserBase + kPage + 0xabc);
  EXPECT_EQ(k, RemapTable::kUnknownKernelBase + 0x234);
  EXPECT_EQ(table.SubstituteUnknown(0x7f1234567000, false), RemapTable::kUnknownUserBase);
  EXPECT_EQ(table.unknown_pages(), 3u);
  // Tiny values (NULL, small integers in a callchain) are no addresses.
  EXPECT_EQ(table.SubstituteUnknown(0, false), 0u);
  EXPECT_EQ(table.SubstituteUnknown(0x1234, false), 0x1234u);
}

TEST(RemapTableTest, SubstitutesNeverMeetPlacements) {
  RemapTable table;
  uint64_t end = 0;
  for (int i = 0; i < 1000; ++i) {
    uint64_t placed = table.PlaceFile(kProcess, &prog, 0x10000000ULL * i, 0x40000000, 0, false);
    end = placed + 0x40000000;
  }
  EXPECT_LT(end, RemapTable::kUnknownUserBase);  // 1000 processes of 1 GiB each
}

}  // namespace
}  // namespace perftk::aslr
