#include "base/pending_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include "../testing/temp_dir_test.h"
#include "base/generated_file.h"
#include "gmock/gmock.h"

namespace perftk::base {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

class PendingFileTest : public testing::TempDirTest {};

TEST_F(PendingFileTest, ANewFileIsRemovedUnlessKept) {
  int fd = -1;
  {
    absl::StatusOr<PendingFile> a = PendingFile::CreateNew(Path("a"), &fd);
    ASSERT_TRUE(a.ok()) << a.status();
    close(fd);
    absl::StatusOr<PendingFile> b = PendingFile::CreateNew(Path("b"), &fd);
    ASSERT_TRUE(b.ok());
    close(fd);
    EXPECT_EQ(a->path(), Path("a"));
    b->Keep();
    EXPECT_THAT(Files(), ElementsAre("a", "b"));
  }
  EXPECT_THAT(Files(), ElementsAre("b"));
}

TEST_F(PendingFileTest, AnExistingPathIsNeverTaken) {
  Put(Path("a"), "mine");
  int fd = -1;
  absl::StatusOr<PendingFile> a = PendingFile::CreateNew(Path("a"), &fd);
  ASSERT_FALSE(a.ok());
  EXPECT_TRUE(absl::IsAlreadyExists(a.status())) << a.status();
  EXPECT_EQ(fd, -1);
  EXPECT_EQ(Contents(Path("a")), "mine");
}

TEST_F(PendingFileTest, RemoveAllTakesNewestFirstSoFoldersEmptyBeforeTheyGo) {
  const size_t before = PendingCount();
  absl::StatusOr<PendingFile> folder = PendingFile::Make(
      Path("d"), PendingFile::Kind::kDirectory, [&] { return mkdir(Path("d").c_str(), 0755); });
  ASSERT_TRUE(folder.ok());
  int fd = -1;
  absl::StatusOr<PendingFile> inside = PendingFile::CreateNew(Path("d/f"), &fd);
  ASSERT_TRUE(inside.ok());
  close(fd);
  EXPECT_EQ(PendingCount(), before + 2);
  EXPECT_EQ(RemoveAllPending(), before + 2);
  EXPECT_THAT(Files(), IsEmpty());
  // The handles' entries are gone: their destructors touch nothing, even
  // when a later file reuses the slot.
  absl::StatusOr<PendingFile> later = PendingFile::CreateNew(Path("later"), &fd);
  ASSERT_TRUE(later.ok());
  close(fd);
  later->Keep();
  inside = PendingFile();
  folder = PendingFile();
  EXPECT_THAT(Files(), ElementsAre("later"));
}

TEST_F(PendingFileTest, AFolderThatIsNotEmptyStays) {
  absl::StatusOr<PendingFile> folder = PendingFile::Make(
      Path("d"), PendingFile::Kind::kDirectory, [&] { return mkdir(Path("d").c_str(), 0755); });
  ASSERT_TRUE(folder.ok());
  Put(Path("d/someone-elses"), "x");
  folder->Remove();
  EXPECT_EQ(Contents(Path("d/someone-elses")), "x");
}

TEST_F(PendingFileTest, RenameOverANewNameStaysPendingOverAnOldOneIsFinal) {
  Put(Path("old"), "old");
  int fd = -1;
  absl::StatusOr<PendingFile> one = PendingFile::CreateNew(Path("one.tmp"), &fd);
  ASSERT_TRUE(one.ok());
  close(fd);
  absl::StatusOr<PendingFile> two = PendingFile::CreateNew(Path("two.tmp"), &fd);
  ASSERT_TRUE(two.ok());
  ASSERT_EQ(write(fd, "new", 3), 3);
  close(fd);
  ASSERT_TRUE(one->RenameOver(Path("fresh")).ok());
  EXPECT_TRUE(one->listed());
  EXPECT_EQ(one->path(), Path("fresh"));
  ASSERT_TRUE(two->RenameOver(Path("old")).ok());
  EXPECT_FALSE(two->listed());
  one->Remove();
  EXPECT_THAT(Files(), ElementsAre("old"));
  EXPECT_EQ(Contents(Path("old")), "new");
}

TEST_F(PendingFileTest, AGeneratedFileReplacesAnExistingOneOnlyWhenClosed) {
  Put(Path("f"), "old");
  absl::StatusOr<GeneratedFile> file = GeneratedFile::Create(Path("f"));
  ASSERT_TRUE(file.ok()) << file.status();
  ASSERT_TRUE(file->Write(std::as_bytes(std::span<const char>("new", 3))).ok());
  EXPECT_EQ(Contents(Path("f")), "old");
  ASSERT_TRUE(file->Close().ok());
  EXPECT_EQ(Contents(Path("f")), "new");
  EXPECT_FALSE(file->TakePending().listed()) << "a replacement is final";
  EXPECT_THAT(Files(), ElementsAre("f"));
}

TEST_F(PendingFileTest, AGeneratedFileNotClosedIsRemoved) {
  Put(Path("f"), "old");
  {
    absl::StatusOr<GeneratedFile> fresh = GeneratedFile::Create(Path("g"));
    absl::StatusOr<GeneratedFile> replacing = GeneratedFile::Create(Path("f"));
    ASSERT_TRUE(fresh.ok());
    ASSERT_TRUE(replacing.ok());
    EXPECT_THAT(Files().size(), 3u) << "f, g and f's replacement";
  }
  EXPECT_THAT(Files(), ElementsAre("f"));
  EXPECT_EQ(Contents(Path("f")), "old");
}

TEST_F(PendingFileTest, AStagedFileIsAtItsNewPathOnlyWhenClosed) {
  {
    absl::StatusOr<GeneratedFile> abandoned = GeneratedFile::CreateStaged(Path("a"));
    ASSERT_TRUE(abandoned.ok()) << abandoned.status();
  }
  EXPECT_THAT(Files(), IsEmpty());
  absl::StatusOr<GeneratedFile> file = GeneratedFile::CreateStaged(Path("f"));
  ASSERT_TRUE(file.ok()) << file.status();
  ASSERT_TRUE(file->Write(std::as_bytes(std::span<const char>("new", 3))).ok());
  EXPECT_THAT(Files(), ElementsAre("f.tmp." + std::to_string(getpid())));
  ASSERT_TRUE(file->Close().ok());
  EXPECT_THAT(Files(), ElementsAre("f"));
  PendingFile pending = file->TakePending();
  EXPECT_TRUE(pending.listed()) << "a new file of the run";
  EXPECT_EQ(pending.path(), Path("f"));
  pending.Keep();
  EXPECT_EQ(Contents(Path("f")), "new");
}

TEST_F(PendingFileTest, AGeneratedFileWritesOverItsStartAndGoesOnAtItsEnd) {
  absl::StatusOr<GeneratedFile> file = GeneratedFile::Create(Path("f"));
  ASSERT_TRUE(file.ok()) << file.status();
  auto bytes = [](const char* s) { return std::as_bytes(std::span<const char>(s, strlen(s))); };
  ASSERT_TRUE(file->Write(bytes("....body")).ok());
  ASSERT_TRUE(file->WriteAt(bytes("head"), 0).ok());
  ASSERT_TRUE(file->Write(bytes(" tail")).ok());
  ASSERT_TRUE(file->Sync().ok());
  ASSERT_TRUE(file->Close().ok());
  file->TakePending().Keep();
  EXPECT_EQ(Contents(Path("f")), "headbody tail");
}

}  // namespace
}  // namespace perftk::base
