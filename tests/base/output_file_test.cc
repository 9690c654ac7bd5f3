#include "base/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../testing/temp_dir_test.h"
#include "base/input_file.h"
#include "gmock/gmock.h"

namespace perftk::base {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class OutputFileTest : public testing::TempDirTest {};

absl::Status WriteAndCommit(const std::string& path, const std::string& text) {
  absl::StatusOr<std::unique_ptr<OutputFile>> out = OutputFile::Open(path);
  if (!out.ok()) return out.status();
  if (absl::Status s = (*out)->Write(text); !s.ok()) return s;
  return (*out)->Commit();
}

TEST_F(OutputFileTest, ARegularFileIsReplacedWholeAtCommitOnly) {
  Put(Path("out"), "old");
  chmod(Path("out").c_str(), 0600);
  {
    absl::StatusOr<std::unique_ptr<OutputFile>> out = OutputFile::Open(Path("out"));
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_FALSE((*out)->is_stream());
    ASSERT_TRUE((*out)->Write("new contents").ok());
    EXPECT_EQ(Contents(Path("out")), "old");
    ASSERT_TRUE((*out)->Commit().ok());
  }
  EXPECT_EQ(Contents(Path("out")), "new contents");
  EXPECT_THAT(Files(), ElementsAre("out"));
  struct stat st;
  ASSERT_EQ(stat(Path("out").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u) << "the old file's permission bits";
}

TEST_F(OutputFileTest, WithoutCommitNothingChanges) {
  Put(Path("out"), "old");
  {
    absl::StatusOr<std::unique_ptr<OutputFile>> out = OutputFile::Open(Path("out"));
    ASSERT_TRUE(out.ok());
    ASSERT_TRUE((*out)->Write("half").ok());
    EXPECT_EQ(Files().size(), 2u);
  }
  EXPECT_THAT(Files(), ElementsAre("out"));
  EXPECT_EQ(Contents(Path("out")), "old");
}

TEST_F(OutputFileTest, ADeviceIsWrittenInPlaceAndStaysADevice) {
  ASSERT_EQ(symlink("/dev/null", Path("null").c_str()), 0);
  absl::StatusOr<std::unique_ptr<OutputFile>> out = OutputFile::Open(Path("null"));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE((*out)->is_stream());
  EXPECT_FALSE((*out)->WriteAt(std::as_bytes(std::span<const char>("x", 1)), 0).ok());
  ASSERT_TRUE((*out)->Write("gone").ok());
  ASSERT_TRUE((*out)->Commit().ok());
  EXPECT_THAT(Files(), ElementsAre("null"));
  struct stat st;
  ASSERT_EQ(stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
}

TEST_F(OutputFileTest, AFullDeviceNamesThePathAndTheReason) {
  absl::Status s = WriteAndCommit("/dev/full", "x");
  EXPECT_THAT(s.message(), HasSubstr("/dev/full: cannot write: No space left on device"));
  struct stat st;
  ASSERT_EQ(stat("/dev/full", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
}

TEST_F(OutputFileTest, AFifoStreams) {
  ASSERT_EQ(mkfifo(Path("fifo").c_str(), 0600), 0);
  pid_t reader = fork();
  if (reader == 0) {
    int fd = open(Path("fifo").c_str(), O_RDONLY);
    char buffer[64] = {};
    ssize_t n = read(fd, buffer, sizeof(buffer));
    _exit(n == 5 && std::string(buffer, 5) == "hello" ? 0 : 1);
  }
  ASSERT_TRUE(WriteAndCommit(Path("fifo"), "hello").ok());
  int status = 0;
  waitpid(reader, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  struct stat st;
  ASSERT_EQ(lstat(Path("fifo").c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
}

TEST_F(OutputFileTest, ALinkToAFileIsWrittenThrough) {
  Put(Path("real"), "old");
  ASSERT_EQ(symlink("real", Path("link").c_str()), 0);
  ASSERT_TRUE(WriteAndCommit(Path("link"), "new").ok());
  EXPECT_EQ(Contents(Path("real")), "new");
  struct stat st;
  ASSERT_EQ(lstat(Path("link").c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode)) << "the link stays";
}

TEST_F(OutputFileTest, AFolderIsRefused) {
  EXPECT_THAT(WriteAndCommit(dir_, "x").message(), HasSubstr("is a directory"));
}

TEST_F(OutputFileTest, AnInputThatIsTheOutputIsRefusedAndTheOutputNotCommitted) {
  Put(Path("in"), "input");
  ASSERT_EQ(link(Path("in").c_str(), Path("hard").c_str()), 0);
  for (const std::string& output : {Path("in"), Path("hard"), dir_ + "/./in"}) {
    absl::StatusOr<std::unique_ptr<OutputFile>> out = OutputFile::Open(output, "output (-o)");
    ASSERT_TRUE(out.ok());
    absl::StatusOr<int> fd = OpenInputFile(Path("in"), "recording");
    ASSERT_FALSE(fd.ok()) << output;
    EXPECT_THAT(fd.status().message(),
                HasSubstr("the output (-o) is also the recording of this run"));
    ASSERT_TRUE((*out)->Write("output").ok());
    EXPECT_FALSE((*out)->Commit().ok()) << "the conflict sticks";
  }
  EXPECT_EQ(Contents(Path("in")), "input");
}

TEST_F(OutputFileTest, ANewOutputIsRefusedAsAnInputByItsPath) {
  absl::StatusOr<std::unique_ptr<OutputFile>> out = OutputFile::Open(Path("new"), "output (-o)");
  ASSERT_TRUE(out.ok());
  absl::Status s =
      CheckNotAnOutput(dir_ + "/../" + std::filesystem::path(dir_).filename().string() + "/new",
                       nullptr, "generated file");
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(ClaimedNamesIn(ResolvedFolder(dir_)), ElementsAre("new"));
}

TEST_F(OutputFileTest, ClaimsEndWithTheOutput) {
  { ASSERT_TRUE(WriteAndCommit(Path("out"), "x").ok()); }
  absl::StatusOr<int> fd = OpenInputFile(Path("out"), "recording");
  ASSERT_TRUE(fd.ok()) << fd.status();
  close(*fd);
}

TEST_F(OutputFileTest, AnInputReadBeforeTheOutputIsOpenIsRefusedAsTheOutput) {
  Put(Path("list"), "input");
  ASSERT_EQ(symlink("list", Path("link").c_str()), 0);
  {
    RunScope run;
    absl::StatusOr<int> fd = OpenInputFile(Path("list"), "list of inputs (@FILE)");
    ASSERT_TRUE(fd.ok()) << fd.status();
    close(*fd);
    for (const char* name : {"list", "link"}) {
      absl::StatusOr<std::unique_ptr<OutputFile>> out = OutputFile::Open(Path(name), "output (-o)");
      ASSERT_FALSE(out.ok()) << name;
      EXPECT_THAT(out.status().message(),
                  HasSubstr("the output (-o) is also the list of inputs (@FILE) of this run"));
    }
  }
  EXPECT_EQ(Contents(Path("list")), "input");
  EXPECT_THAT(Files(), ElementsAre("link", "list"));
  // The run is over: the next one may write what this one read.
  ASSERT_TRUE(WriteAndCommit(Path("list"), "output").ok());
  EXPECT_EQ(Contents(Path("list")), "output");
}

TEST_F(OutputFileTest, ADanglingLinkIsWrittenThroughAndStays) {
  ASSERT_EQ(mkdir(Path("sub").c_str(), 0700), 0);
  ASSERT_EQ(symlink("sub/chain", Path("out").c_str()), 0);
  ASSERT_EQ(symlink("target", Path("sub/chain").c_str()), 0);  // relative to sub/
  ASSERT_TRUE(WriteAndCommit(Path("out"), "written").ok());
  struct stat st;
  ASSERT_EQ(lstat(Path("out").c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  ASSERT_EQ(lstat(Path("sub/chain").c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  EXPECT_EQ(Contents(Path("sub/target")), "written");
}

TEST_F(OutputFileTest, ALoopOfLinksIsRefusedAndStays) {
  ASSERT_EQ(symlink("b", Path("a").c_str()), 0);
  ASSERT_EQ(symlink("a", Path("b").c_str()), 0);
  absl::StatusOr<std::unique_ptr<OutputFile>> out = OutputFile::Open(Path("a"), "output (-o)");
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("is a loop of symbolic links"));
  EXPECT_THAT(Files(), ElementsAre("a", "b"));
  struct stat st;
  ASSERT_EQ(lstat(Path("a").c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
}

TEST_F(OutputFileTest, AnInputFifoIsRefusedWithoutBlocking) {
  ASSERT_EQ(mkfifo(Path("fifo").c_str(), 0600), 0);
  absl::StatusOr<int> fd = OpenInputFile(Path("fifo"), "jitdump");
  ASSERT_FALSE(fd.ok());
  EXPECT_THAT(fd.status().message(), HasSubstr(Path("fifo") + ": the jitdump is a FIFO"));
}

}  // namespace
}  // namespace perftk::base
