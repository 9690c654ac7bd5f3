#include "machine/maps.h"

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "machine/dso.h"
#include "machine/map.h"
#include "print_map.h"

namespace perftk::machine {
namespace {

using ::testing::ElementsAre;
using ::testing::Optional;

class MapsTest : public ::testing::Test {
 protected:
  const Dso* DsoNamed(absl::string_view name) {
    return dsos_.Intern(name, base::BuildId(), FileId{}, /*kernel_space=*/false);
  }
  Map FileMap(uint64_t start, uint64_t end, uint64_t pgoff, absl::string_view name = "/lib/a.so") {
    Map map;
    map.start = start;
    map.end = end;
    map.pgoff = pgoff;
    map.dso = DsoNamed(name);
    map.kind = MapKind::kFile;
    return map;
  }
  Map WithKind(Map map, MapKind kind) {
    map.kind = kind;
    return map;
  }
  void Insert(Maps& maps, const Map& map) {
    ASSERT_TRUE(maps.Mutate([&](Maps::Editor& e) { return e.Insert(map); }).ok());
  }

  DsoTable dsos_;
};

TEST_F(MapsTest, FindCoversStartButNotEnd) {
  Maps maps;
  Insert(maps, FileMap(0x1000, 0x3000, 0));
  EXPECT_EQ(maps.Find(0xfff), std::nullopt);
  EXPECT_THAT(maps.Find(0x1000), Optional(FileMap(0x1000, 0x3000, 0)));
  EXPECT_THAT(maps.Find(0x2fff), Optional(FileMap(0x1000, 0x3000, 0)));
  EXPECT_EQ(maps.Find(0x3000), std::nullopt);
}

TEST_F(MapsTest, FindAmongManyPicksTheRightOneAndSkipsGaps) {
  Maps maps;
  for (uint64_t i = 0; i < 100; ++i) {
    Insert(maps, FileMap(0x10000 * (i + 1), 0x10000 * (i + 1) + 0x8000, i * 0x1000));
  }
  for (uint64_t i = 0; i < 100; ++i) {
    const uint64_t start = 0x10000 * (i + 1);
    EXPECT_THAT(maps.Find(start + 0x7fff), Optional(FileMap(start, start + 0x8000, i * 0x1000)));
    EXPECT_EQ(maps.Find(start + 0x8000), std::nullopt) << i;
  }
  EXPECT_EQ(maps.size(), 100u);
}

TEST_F(MapsTest, AdjacentMapsDoNotCutEachOther) {
  Maps maps;
  Insert(maps, FileMap(0x1000, 0x2000, 0, "/a"));
  Insert(maps, FileMap(0x2000, 0x3000, 0, "/b"));
  Insert(maps, FileMap(0x0000, 0x1000, 0, "/c"));
  EXPECT_THAT(maps.Snapshot(),
              ElementsAre(FileMap(0x0000, 0x1000, 0, "/c"), FileMap(0x1000, 0x2000, 0, "/a"),
                          FileMap(0x2000, 0x3000, 0, "/b")));
}

TEST_F(MapsTest, OverlapAtFrontKeepsTheTailWithAdvancedPgoff) {
  Maps maps;
  Insert(maps, FileMap(0x10000, 0x20000, 0x4000, "/old"));
  Insert(maps, FileMap(0x8000, 0x14000, 0, "/new"));
  // after.pgoff = 0x4000 + (0x14000 - 0x10000).
  EXPECT_THAT(maps.Snapshot(), ElementsAre(FileMap(0x8000, 0x14000, 0, "/new"),
                                           FileMap(0x14000, 0x20000, 0x8000, "/old")));
}

TEST_F(MapsTest, OverlapAtBackKeepsTheHeadWithItsPgoff) {
  Maps maps;
  Insert(maps, FileMap(0x10000, 0x20000, 0x4000, "/old"));
  Insert(maps, FileMap(0x18000, 0x30000, 0, "/new"));
  EXPECT_THAT(maps.Snapshot(), ElementsAre(FileMap(0x10000, 0x18000, 0x4000, "/old"),
                                           FileMap(0x18000, 0x30000, 0, "/new")));
}

TEST_F(MapsTest, OverlapInTheMiddleSplitsInThree) {
  Maps maps;
  Insert(maps, FileMap(0x10000, 0x40000, 0x1000, "/old"));
  Insert(maps, FileMap(0x20000, 0x28000, 0x500, "/new"));
  EXPECT_THAT(maps.Snapshot(), ElementsAre(FileMap(0x10000, 0x20000, 0x1000, "/old"),
                                           FileMap(0x20000, 0x28000, 0x500, "/new"),
                                           FileMap(0x28000, 0x40000, 0x19000, "/old")));
  // The pieces still translate like the original map did.
  const Map original = FileMap(0x10000, 0x40000, 0x1000, "/old");
  EXPECT_EQ(maps.Find(0x30123)->DsoAddress(0x30123), original.DsoAddress(0x30123));
  EXPECT_EQ(maps.Find(0x10123)->DsoAddress(0x10123), original.DsoAddress(0x10123));
}

TEST_F(MapsTest, CoveringMapDropsEveryMapInside) {
  Maps maps;
  Insert(maps, FileMap(0x1000, 0x2000, 0, "/a"));
  Insert(maps, FileMap(0x3000, 0x4000, 0, "/b"));
  Insert(maps, FileMap(0x4000, 0x5000, 0, "/c"));
  Insert(maps, FileMap(0x9000, 0xa000, 0, "/d"));
  Insert(maps, FileMap(0x1000, 0x5000, 0x7000, "/new"));
  EXPECT_THAT(maps.Snapshot(), ElementsAre(FileMap(0x1000, 0x5000, 0x7000, "/new"),
                                           FileMap(0x9000, 0xa000, 0, "/d")));
}

TEST_F(MapsTest, SpanningMapCutsBothEndsAndDropsTheMiddle) {
  Maps maps;
  Insert(maps, FileMap(0x1000, 0x3000, 0, "/a"));
  Insert(maps, FileMap(0x3000, 0x4000, 0, "/b"));
  Insert(maps, FileMap(0x4000, 0x8000, 0x2000, "/c"));
  Insert(maps, FileMap(0x2000, 0x6000, 0, "/new"));
  EXPECT_THAT(maps.Snapshot(),
              ElementsAre(FileMap(0x1000, 0x2000, 0, "/a"), FileMap(0x2000, 0x6000, 0, "/new"),
                          FileMap(0x6000, 0x8000, 0x4000, "/c")));
}

TEST_F(MapsTest, IdenticalRangeReplaces) {
  Maps maps;
  Insert(maps, FileMap(0x1000, 0x2000, 0, "/a"));
  Insert(maps, FileMap(0x1000, 0x2000, 0x5000, "/b"));
  EXPECT_THAT(maps.Snapshot(), ElementsAre(FileMap(0x1000, 0x2000, 0x5000, "/b")));
}

TEST_F(MapsTest, AnonTailKeepsPgoffEqualToStart) {
  Maps maps;
  Insert(maps, WithKind(FileMap(0x10000, 0x20000, 0x10000, "//anon"), MapKind::kAnon));
  Insert(maps, FileMap(0x10000, 0x11000, 0, "/new"));
  EXPECT_THAT(maps.Find(0x11000),
              Optional(WithKind(FileMap(0x11000, 0x20000, 0x11000, "//anon"), MapKind::kAnon)));
}

TEST_F(MapsTest, KernelTextTailKeepsItsRelocationPgoff) {
  Maps maps;
  const uint64_t text = 0xffffffff81000000;
  Insert(maps,
         WithKind(FileMap(text, text + 0x1000000, text, "[kernel.kallsyms]"), MapKind::kKernel));
  Insert(maps, WithKind(FileMap(text, text + 0x1000, 0, "[foo]"), MapKind::kModule));
  std::optional<Map> tail = maps.Find(text + 0x1000);
  ASSERT_TRUE(tail.has_value());
  EXPECT_EQ(tail->start, text + 0x1000);
  EXPECT_EQ(tail->pgoff, text);
  EXPECT_EQ(tail->DsoAddress(text + 0x2345), text + 0x2345);
}

TEST_F(MapsTest, EmptyOrReversedMapIsRejectedAndChangesNothing) {
  Maps maps;
  Insert(maps, FileMap(0x1000, 0x2000, 0));
  absl::Status empty =
      maps.Mutate([&](Maps::Editor& e) { return e.Insert(FileMap(0x1800, 0x1800, 0)); });
  absl::Status reversed =
      maps.Mutate([&](Maps::Editor& e) { return e.Insert(FileMap(0x1800, 0x1000, 0)); });
  EXPECT_EQ(empty.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(reversed.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(maps.Snapshot(), ElementsAre(FileMap(0x1000, 0x2000, 0)));
}

TEST_F(MapsTest, RemoveTakesOnlyTheCoveringMap) {
  Maps maps;
  Insert(maps, FileMap(0x1000, 0x2000, 0, "/a"));
  Insert(maps, FileMap(0x2000, 0x3000, 0, "/b"));
  EXPECT_FALSE(maps.Mutate([](Maps::Editor& e) { return e.Remove(0x3000); }));
  EXPECT_TRUE(maps.Mutate([](Maps::Editor& e) { return e.Remove(0x2fff); }));
  EXPECT_THAT(maps.Snapshot(), ElementsAre(FileMap(0x1000, 0x2000, 0, "/a")));
  maps.Mutate([](Maps::Editor& e) { e.Clear(); });
  EXPECT_EQ(maps.size(), 0u);
}

TEST_F(MapsTest, MutateSeesItsOwnChangesAndCountsGenerations) {
  Maps maps;
  const uint64_t before = maps.generation();
  const bool found = maps.Mutate([&](Maps::Editor& e) {
    EXPECT_TRUE(e.Insert(FileMap(0x1000, 0x2000, 0)).ok());
    return e.Find(0x1800) != nullptr && e.maps().size() == 1;
  });
  EXPECT_TRUE(found);
  EXPECT_EQ(maps.generation(), before + 1);
}

TEST_F(MapsTest, CloneIsIndependent) {
  Maps parent;
  Insert(parent, FileMap(0x1000, 0x2000, 0, "/a"));
  std::shared_ptr<Maps> child = parent.Clone();
  Insert(*child, FileMap(0x1000, 0x2000, 0, "/child"));
  Insert(parent, FileMap(0x5000, 0x6000, 0, "/parent"));
  EXPECT_THAT(child->Snapshot(), ElementsAre(FileMap(0x1000, 0x2000, 0, "/child")));
  EXPECT_THAT(parent.Snapshot(),
              ElementsAre(FileMap(0x1000, 0x2000, 0, "/a"), FileMap(0x5000, 0x6000, 0, "/parent")));
}

TEST_F(MapsTest, CachedFindFollowsMutations) {
  Maps maps;
  MapsCache cache;
  Insert(maps, FileMap(0x1000, 0x2000, 0, "/a"));
  EXPECT_THAT(maps.Find(0x1100, cache), Optional(FileMap(0x1000, 0x2000, 0, "/a")));
  EXPECT_THAT(maps.Find(0x1200, cache), Optional(FileMap(0x1000, 0x2000, 0, "/a")));
  Insert(maps, FileMap(0x1000, 0x2000, 0, "/b"));
  EXPECT_THAT(maps.Find(0x1200, cache), Optional(FileMap(0x1000, 0x2000, 0, "/b")));
  maps.Mutate([](Maps::Editor& e) { e.Clear(); });
  EXPECT_EQ(maps.Find(0x1200, cache), std::nullopt);

  // A cache filled from one Maps is not trusted by another.
  Maps other;
  Insert(other, FileMap(0x1000, 0x2000, 0, "/other"));
  Insert(maps, FileMap(0x1000, 0x2000, 0, "/a"));
  EXPECT_THAT(maps.Find(0x1100, cache), Optional(FileMap(0x1000, 0x2000, 0, "/a")));
  EXPECT_THAT(other.Find(0x1100, cache), Optional(FileMap(0x1000, 0x2000, 0, "/other")));
}

TEST(MapTest, DsoAddressAndAddressOfByKind) {
  Map file{.start = 0x5000, .end = 0x9000, .pgoff = 0x1000, .kind = MapKind::kFile};
  EXPECT_EQ(file.DsoAddress(0x5010), 0x1010u);
  EXPECT_EQ(file.AddressOf(0x1010), 0x5010u);
  Map anon = file;
  anon.kind = MapKind::kAnon;
  EXPECT_EQ(anon.DsoAddress(0x5010), 0x5010u);
  EXPECT_EQ(anon.AddressOf(0x5010), 0x5010u);
}

TEST(MapTest, UserMapKindFollowsPerfNames) {
  EXPECT_EQ(UserMapKind("/usr/lib/libc.so.6", 0), MapKind::kFile);
  EXPECT_EQ(UserMapKind("//anon", 0), MapKind::kAnon);
  EXPECT_EQ(UserMapKind("/dev/zero (deleted)", 0), MapKind::kAnon);
  EXPECT_EQ(UserMapKind("/anon_hugepage (deleted)", 0), MapKind::kAnon);
  EXPECT_EQ(UserMapKind("/memfd:huge", 0x40000), MapKind::kAnon);  // MAP_HUGETLB
  EXPECT_EQ(UserMapKind("[stack]", 0), MapKind::kNoFile);
  EXPECT_EQ(UserMapKind("[stack:1234]", 0), MapKind::kNoFile);
  EXPECT_EQ(UserMapKind("[heap]", 0), MapKind::kNoFile);
  EXPECT_EQ(UserMapKind("/SYSV00000000 (deleted)", 0), MapKind::kNoFile);
  EXPECT_EQ(UserMapKind("[vdso]", 0), MapKind::kVdso);
  EXPECT_EQ(UserMapKind("[vvar]", 0), MapKind::kFile);
}

TEST(DsoTableTest, InternsByIdentity) {
  DsoTable table;
  const Dso* a = table.Intern("/lib/a.so", base::BuildId(), FileId{8, 1, 42, 0}, false);
  EXPECT_EQ(table.Intern("/lib/a.so", base::BuildId(), FileId{8, 1, 42, 0}, false), a);
  EXPECT_NE(table.Intern("/lib/a.so", base::BuildId(), FileId{8, 1, 43, 0}, false), a);
  EXPECT_NE(table.Intern("/lib/a.so", *base::BuildId::FromHex("0102"), FileId{8, 1, 42, 0}, false),
            a);
  EXPECT_NE(table.Intern("/lib/a.so", base::BuildId(), FileId{8, 1, 42, 0}, true), a);
  EXPECT_EQ(a->name, "/lib/a.so");
  EXPECT_EQ(table.size(), 4u);
}

}  // namespace
}  // namespace perftk::machine
