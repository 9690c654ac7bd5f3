// FileCreator and JitFileWriter, threaded and not: order, errors, cleanup.
#include "jit/file_creator.h"

#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "../testing/forbid_new_threads.h"
#include "../testing/temp_dir_test.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "jit/jit_file_writer.h"

namespace perftk::jit {
namespace {

using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

class TempDirTest : public testing::TempDirTest {
 protected:
  std::string Path(int i) const { return dir_ + "/f" + std::to_string(i); }

  // Closes a taken file and keeps it, as a run that succeeded does.
  static void Finish(base::GeneratedFile& file) {
    ASSERT_TRUE(file.Close().ok());
    file.TakePending().Keep();
  }
};

class FileCreatorTest : public TempDirTest, public ::testing::WithParamInterface<bool> {};

TEST_P(FileCreatorTest, HandsOutDescriptorsInRequestOrder) {
  FileCreator creator(GetParam());
  constexpr int kFiles = 300;
  for (int i = 0; i < kFiles; ++i) creator.Request(Path(i));
  EXPECT_EQ(creator.pending(), size_t{kFiles});
  for (int i = 0; i < kFiles; ++i) {
    absl::StatusOr<base::GeneratedFile> file = creator.Take();
    ASSERT_TRUE(file.ok()) << file.status();
    std::string name = "f" + std::to_string(i);
    ASSERT_EQ(write(file->fd(), name.data(), name.size()), static_cast<ssize_t>(name.size()));
    Finish(*file);
  }
  EXPECT_EQ(creator.pending(), 0u);
  for (int i = 0; i < kFiles; ++i) EXPECT_EQ(Contents(Path(i)), "f" + std::to_string(i));
}

TEST_P(FileCreatorTest, AFailedCreationIsTheErrorOfItsRequestOnly) {
  FileCreator creator(GetParam());
  creator.Request(Path(0));
  creator.Request(dir_ + "/no-such-dir/f1");
  creator.Request(Path(2));
  absl::StatusOr<base::GeneratedFile> first = creator.Take();
  ASSERT_TRUE(first.ok());
  absl::StatusOr<base::GeneratedFile> second = creator.Take();
  ASSERT_FALSE(second.ok());
  EXPECT_THAT(std::string(second.status().message()),
              HasSubstr(dir_ + "/no-such-dir/f1: cannot create: No such file or directory"));
  absl::StatusOr<base::GeneratedFile> third = creator.Take();
  ASSERT_TRUE(third.ok());
}

TEST_P(FileCreatorTest, AnExistingFileIsReplacedWholeWhenItsNewContentsAreClosed) {
  std::ofstream(Path(0)) << "old";
  FileCreator creator(GetParam());
  for (int i = 0; i < 40; ++i) creator.Request(Path(i));
  // Time for a thread to get past the first (it waits for 16 requests or a
  // Take, and leaves fewer than 16 for later).
  for (int tries = 0; GetParam() && Files().size() < 20 && tries < 1000; ++tries) usleep(1000);
  EXPECT_EQ(Contents(Path(0)), "old");
  absl::StatusOr<base::GeneratedFile> file = creator.Take();
  ASSERT_TRUE(file.ok()) << file.status();
  ASSERT_EQ(write(file->fd(), "new", 3), 3);
  EXPECT_EQ(Contents(Path(0)), "old") << "never seen half-written";
  Finish(*file);
  EXPECT_EQ(Contents(Path(0)), "new");
  for (int i = 1; i < 40; ++i) {
    file = creator.Take();
    ASSERT_TRUE(file.ok()) << file.status();
    Finish(*file);
  }
  EXPECT_EQ(Files().size(), 40u) << "no temporary file left";
}

TEST_P(FileCreatorTest, FilesNotTakenAreRemovedWhenDestroyed) {
  std::ofstream(Path(5)) << "old";
  {
    FileCreator creator(GetParam());
    for (int i = 0; i < 200; ++i) creator.Request(Path(i));
    for (int i = 0; i < 3; ++i) {
      absl::StatusOr<base::GeneratedFile> file = creator.Take();
      ASSERT_TRUE(file.ok());
      Finish(*file);
    }
    // Wait until the creator is past some of the rest (threaded), so that the
    // destructor has created files to remove.
    for (int tries = 0; GetParam() && Files().size() < 10 && tries < 1000; ++tries) usleep(1000);
  }
  EXPECT_THAT(Files(), ElementsAreArray({"f0", "f1", "f2", "f5"}));
  EXPECT_EQ(Contents(Path(5)), "old") << "a file that was there is left as it was";
}

// A process that may start no more threads (thread or memory limits): the
// creator asked for a thread does the work on the caller's thread.
TEST_F(TempDirTest, FileCreatorWorksOnWhenNoThreadStarts) {
  if (!testing::kCanForbidThreads) GTEST_SKIP() << "RLIMIT_AS and sanitizers do not mix";
  const std::string path = Path(0);
  EXPECT_EXIT(
      {
        if (!testing::ForbidNewThreads()) _exit(3);
        FileCreator creator(/*threaded=*/true);
        if (creator.threaded()) _exit(4);
        creator.Request(path);
        absl::StatusOr<base::GeneratedFile> file = creator.Take();
        if (!file.ok()) _exit(5);
        if (write(file->fd(), "x", 1) != 1) _exit(6);
        if (!file->Close().ok()) _exit(7);
        file->TakePending().Keep();
        _exit(0);
      },
      ::testing::ExitedWithCode(0), "");
  EXPECT_EQ(Contents(path), "x");
}

INSTANTIATE_TEST_SUITE_P(ThreadedOrNot, FileCreatorTest, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "Threaded" : "Inline"; });

struct WrittenFile {
  std::string path;
  uint64_t tag;
};

class JitFileWriterTest : public TempDirTest, public ::testing::WithParamInterface<size_t> {
 protected:
  JitFileWriter MakeWriter(size_t ahead) {
    return JitFileWriter(ahead, [this](const std::string& path, const base::BuildId& id,
                                       const struct stat& st, uint64_t tag) {
      struct stat now;
      EXPECT_EQ(stat(path.c_str(), &now), 0) << path << " reported before it exists";
      EXPECT_EQ(now.st_ino, st.st_ino);
      EXPECT_EQ(id.bytes()[0], static_cast<std::byte>(tag));
      written_.push_back(WrittenFile{path, tag});
    });
  }
  static std::vector<std::byte> Bytes(const std::string& s) {
    std::vector<std::byte> b(s.size());
    std::memcpy(b.data(), s.data(), s.size());
    return b;
  }
  static base::BuildId Id(uint64_t tag) {
    const uint8_t id[base::BuildId::kMaxSize] = {static_cast<uint8_t>(tag)};
    return base::BuildId::FromBytes(std::span<const uint8_t>(id));
  }

  std::vector<WrittenFile> written_;
};

TEST_P(JitFileWriterTest, WritesEveryFileInOrderAndTheLastContentOfAPathWins) {
  JitFileWriter writer = MakeWriter(GetParam());
  std::vector<uint64_t> expected_tags;
  for (uint64_t i = 0; i < 500; ++i) {
    int file = static_cast<int>(i % 7 == 3 ? i / 2 : i);  // some paths again
    // Longer content first: a second write that did not replace the file
    // would leave the first one's tail.
    std::string content = "content of " + std::to_string(i) + std::string(500 - i, '.');
    ASSERT_TRUE(writer.Add(Path(file), Bytes(content), Id(i), i).ok());
    expected_tags.push_back(i);
    if (GetParam() == 0) {
      EXPECT_EQ(written_.size(), i + 1) << "written at once";
    }
  }
  ASSERT_TRUE(writer.Flush().ok());
  std::vector<uint64_t> tags;
  for (const WrittenFile& w : written_) tags.push_back(w.tag);
  EXPECT_EQ(tags, expected_tags);
  for (uint64_t i = 0; i < 500; ++i) {
    // The last i written to each path.
    int file = static_cast<int>(i % 7 == 3 ? i / 2 : i);
    uint64_t last = i;
    for (uint64_t j = i + 1; j < 500; ++j) {
      if (static_cast<int>(j % 7 == 3 ? j / 2 : j) == file) last = j;
    }
    EXPECT_EQ(Contents(Path(file)),
              "content of " + std::to_string(last) + std::string(500 - last, '.'));
  }
}

TEST_P(JitFileWriterTest, APathAddedAgainWhileQueuedIsReplacedWhole) {
  JitFileWriter writer = MakeWriter(GetParam());
  ASSERT_TRUE(writer.Add(Path(0), Bytes("the first, longer content"), Id(1), 1).ok());
  ASSERT_TRUE(writer.Add(Path(0), Bytes("second"), Id(2), 2).ok());
  // Time for a creator thread to open whatever it was asked to: had it
  // been asked for the path twice, both writes would land in one file.
  usleep(50 * 1000);
  ASSERT_TRUE(writer.Flush().ok());
  EXPECT_EQ(Contents(Path(0)), "second");
  ASSERT_EQ(written_.size(), 2u);
}

TEST_P(JitFileWriterTest, ACreationFailureStopsTheWriterAndRemovesTheFilesItCreated) {
  std::filesystem::create_directory(Path(40));  // open(O_WRONLY) of it fails
  for (int i = 100; i < 110; ++i) std::ofstream(Path(i)) << "old";
  {
    JitFileWriter writer = MakeWriter(GetParam());
    absl::Status status;
    int added = 0;
    for (int i = 0; i < 200 && status.ok(); ++i, ++added) {
      status = writer.Add(Path(i), Bytes("x"), Id(i), i);
    }
    if (status.ok()) status = writer.Flush();
    ASSERT_FALSE(status.ok());
    EXPECT_THAT(std::string(status.message()),
                HasSubstr(Path(40) + ": cannot create: Is a directory"));
    EXPECT_EQ(writer.Flush(), status) << "the writer is spent";
    EXPECT_EQ(writer.Add(Path(300), Bytes("y"), Id(0), 300), status);
    ASSERT_EQ(written_.size(), 40u);
    EXPECT_LE(added, 40 + static_cast<int>(GetParam()) + 1);
    usleep(100 * 1000);  // time for a creator thread to get to what was asked
  }
  // The files written were new: a writer that is not told to keep them
  // (the run failed) removes them.
  std::vector<std::string> expected = {"f40"};  // the directory
  for (int i = 100; i < 110; ++i) expected.push_back("f" + std::to_string(i));
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(Files(), expected) << "files created ahead, or written but not kept, are removed";
  for (int i = 100; i < 110; ++i) {
    EXPECT_EQ(Contents(Path(i)), "old") << "files that were there are left as they were";
  }
}

TEST_P(JitFileWriterTest, AWriteFailureRemovesThatFile) {
  // Files may hold 100 bytes (EFBIG past that, SIGXFSZ ignored): the 8th,
  // bigger one fails half-way.
  struct rlimit old, small = {100, 100};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old), 0);
  sighandler_t old_handler = signal(SIGXFSZ, SIG_IGN);
  small.rlim_max = old.rlim_max;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  absl::Status status;
  {
    JitFileWriter writer = MakeWriter(GetParam());
    for (int i = 0; i < 20 && status.ok(); ++i) {
      status = writer.Add(Path(i), Bytes(i == 7 ? std::string(150, 'x') : "x"), Id(i), i);
    }
    if (status.ok()) status = writer.Flush();
    EXPECT_TRUE(std::filesystem::exists(Path(6))) << "written, not yet removed";
    writer.KeepFiles();
  }
  setrlimit(RLIMIT_FSIZE, &old);
  signal(SIGXFSZ, old_handler);
  EXPECT_THAT(std::string(status.message()), HasSubstr(Path(7) + ": write failed: File too large"));
  EXPECT_EQ(written_.size(), 7u);
  EXPECT_FALSE(std::filesystem::exists(Path(7)));
  EXPECT_TRUE(std::filesystem::exists(Path(6))) << "kept";
}

TEST_P(JitFileWriterTest, FilesWrittenButNotKeptAreRemovedWithTheWriter) {
  std::ofstream(Path(3)) << "old";
  {
    JitFileWriter writer = MakeWriter(GetParam());
    for (int i = 0; i < 10; ++i) ASSERT_TRUE(writer.Add(Path(i), Bytes("new"), Id(i), i).ok());
    ASSERT_TRUE(writer.Flush().ok());
    EXPECT_EQ(Files().size(), 10u);
  }
  EXPECT_THAT(Files(), ElementsAreArray({"f3"})) << "only the file that was there before";
  EXPECT_EQ(Contents(Path(3)), "new") << "replaced whole when written";
}

INSTANTIATE_TEST_SUITE_P(Ahead, JitFileWriterTest, ::testing::Values(0, 1, 8, 128));

TEST_F(TempDirTest, JitFileWriterBoundsTheBytesItHolds) {
  size_t written = 0;
  JitFileWriter writer(128, [&](const std::string&, const base::BuildId&, const struct stat&,
                                uint64_t) { ++written; });
  size_t size = JitFileWriter::kMaxQueuedBytes / 2 + 1;
  ASSERT_TRUE(writer.Add(Path(0), std::vector<std::byte>(size), {}, 0).ok());
  EXPECT_EQ(written, 0u);
  ASSERT_TRUE(writer.Add(Path(1), std::vector<std::byte>(size), {}, 1).ok());
  EXPECT_EQ(written, 1u) << "more than kMaxQueuedBytes waited";
  ASSERT_TRUE(writer.Flush().ok());
  EXPECT_EQ(written, 2u);
  EXPECT_EQ(std::filesystem::file_size(Path(1)), size);
}

TEST(JitFileWriter, AheadStaysWithinAQuarterOfTheFileLimit) {
  struct rlimit old;
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &old), 0);
  struct rlimit low = old;
  low.rlim_cur = 100;
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &low), 0);
  size_t ahead = JitFileWriter::AheadWithinFileLimit(128);
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &old), 0);
  EXPECT_EQ(ahead, 25u);
  if (old.rlim_cur >= 512) {
    EXPECT_EQ(JitFileWriter::AheadWithinFileLimit(128), 128u);
  }
}

}  // namespace
}  // namespace perftk::jit
