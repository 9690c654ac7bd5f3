#include "base/creation_mode.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../testing/temp_dir_test.h"
#include "base/pending_file.h"
#include "gtest/gtest.h"

namespace perftk::base {
namespace {

// One test: the mode is process-wide and only ever narrows.
class CreationModeTest : public testing::TempDirTest {};

TEST_F(CreationModeTest, NarrowsToEachRecordingAndNeverWidens) {
  EXPECT_EQ(FileCreationMode(), 0666u);
  EXPECT_EQ(DirectoryCreationMode(), 0777u);

  LimitCreationModeTo(S_IFREG | 0755);  // execute bits never pass on
  EXPECT_EQ(FileCreationMode(), 0644u);
  EXPECT_EQ(DirectoryCreationMode(), 0755u);

  LimitCreationModeTo(S_IFREG | 0640);
  EXPECT_EQ(FileCreationMode(), 0640u);
  EXPECT_EQ(DirectoryCreationMode(), 0750u);

  LimitCreationModeTo(S_IFIFO | 0666);  // a wider one later changes nothing
  EXPECT_EQ(FileCreationMode(), 0640u);

  LimitCreationModeTo(S_IFIFO | 0600);
  EXPECT_EQ(FileCreationMode(), 0600u);
  EXPECT_EQ(DirectoryCreationMode(), 0700u);

  // New files get it (less the umask).
  const mode_t old_umask = umask(022);
  int fd = -1;
  absl::StatusOr<PendingFile> file = PendingFile::CreateNew(Path("new"), &fd);
  umask(old_umask);
  ASSERT_TRUE(file.ok()) << file.status();
  struct stat st;
  ASSERT_EQ(fstat(fd, &st), 0);
  close(fd);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
}

}  // namespace
}  // namespace perftk::base
