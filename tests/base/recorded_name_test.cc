#include "base/recorded_name.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "../testing/temp_dir_test.h"
#include "base/input_file.h"

namespace perftk::base {
namespace {

TEST(HasDotDotComponent, FindsOnlyWholeComponents) {
  EXPECT_TRUE(HasDotDotComponent(".."));
  EXPECT_TRUE(HasDotDotComponent("../x"));
  EXPECT_TRUE(HasDotDotComponent("/a/../b"));
  EXPECT_TRUE(HasDotDotComponent("a/.."));
  EXPECT_TRUE(HasDotDotComponent("/tmp/../dev/zero"));
  EXPECT_FALSE(HasDotDotComponent("/a/..b/c"));
  EXPECT_FALSE(HasDotDotComponent("/a/b../c"));
  EXPECT_FALSE(HasDotDotComponent("/a/./b"));
  EXPECT_FALSE(HasDotDotComponent(""));
  EXPECT_FALSE(HasDotDotComponent("[kernel.kallsyms]"));
}

TEST(JoinRecordedName, JoinsWithOneSlashAndRefusesEscapes) {
  EXPECT_EQ(*JoinRecordedName("", "/usr/bin/ls"), "/usr/bin/ls");
  EXPECT_EQ(*JoinRecordedName("/symfs/", "/usr/bin/ls"), "/symfs/usr/bin/ls");
  EXPECT_EQ(*JoinRecordedName("/sys/module", "ext4", true), "/sys/module/ext4");
  absl::StatusOr<std::string> up = JoinRecordedName("/sys/module", "../../tmp/x", true);
  ASSERT_FALSE(up.ok());
  EXPECT_NE(up.status().message().find("'..' component: refused"), std::string::npos);
  EXPECT_FALSE(JoinRecordedName("/symfs", "/a/../../etc/passwd").ok());
  EXPECT_FALSE(JoinRecordedName("/sys/module", "a/b", true).ok());
  EXPECT_FALSE(JoinRecordedName("/sys/module", "", true).ok());
  EXPECT_FALSE(JoinRecordedName("/sys/module", ".", true).ok());
  absl::StatusOr<std::string> escaped = JoinRecordedName("/r", "/x/\033[31m/../y");
  ASSERT_FALSE(escaped.ok());
  EXPECT_EQ(escaped.status().message().find('\033'), std::string::npos) << "printed escaped";
}

class ReadSmallRegularFileTest : public testing::TempDirTest {};

TEST_F(ReadSmallRegularFileTest, ReadsAFileUpToTheLimitAndNoFurther) {
  std::ofstream(Path("notes"), std::ios::binary) << std::string(100, 'n');
  absl::StatusOr<std::string> bytes = ReadSmallRegularFile(Path("notes"), "notes file", 100);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  EXPECT_EQ(*bytes, std::string(100, 'n'));
  absl::StatusOr<std::string> large = ReadSmallRegularFile(Path("notes"), "notes file", 99);
  ASSERT_FALSE(large.ok());
  EXPECT_NE(large.status().message().find("larger than 99 bytes"), std::string::npos);
  EXPECT_EQ(large.status().message().find("nnnn"), std::string::npos) << "no bytes quoted";
}

TEST_F(ReadSmallRegularFileTest, AFifoOrDeviceIsRefusedWithoutOpeningIt) {
  ASSERT_EQ(mkfifo(Path("fifo").c_str(), 0600), 0);
  // A FIFO with no writer: a reading open that blocked would hang the test.
  absl::StatusOr<std::string> fifo = ReadSmallRegularFile(Path("fifo"), "notes file", 1 << 20);
  ASSERT_FALSE(fifo.ok());
  EXPECT_NE(fifo.status().message().find("is a FIFO"), std::string::npos) << fifo.status();
  std::filesystem::create_symlink("/dev/zero", Path("zero"));
  absl::StatusOr<std::string> zero = ReadSmallRegularFile(Path("zero"), "notes file", 1 << 20);
  ASSERT_FALSE(zero.ok());
  EXPECT_NE(zero.status().message().find("is a character device"), std::string::npos);
  EXPECT_FALSE(ReadSmallRegularFile(dir_, "notes file", 1 << 20).ok());
}

TEST_F(ReadSmallRegularFileTest, OnlyAMissingFileIsNotFound) {
  EXPECT_TRUE(absl::IsNotFound(ReadSmallRegularFile(Path("none"), "notes file", 10).status()));
  struct stat st;
  EXPECT_TRUE(absl::IsNotFound(StatWithoutOpening(Path("none"), "ELF file", st)));
  // A path through a regular file (ENOTDIR) is not there either.
  std::ofstream(Path("plain")) << "x";
  EXPECT_TRUE(absl::IsNotFound(ReadSmallRegularFile(Path("plain/f"), "notes file", 10).status()));
  // A name too long for the system (ENAMETOOLONG) is an error, not "missing".
  absl::Status too_long = StatWithoutOpening(Path(std::string(5000, 'x')), "ELF file", st);
  EXPECT_FALSE(too_long.ok());
  EXPECT_FALSE(absl::IsNotFound(too_long)) << too_long;
}

}  // namespace
}  // namespace perftk::base
