// EncodedSamples: what is added comes back in order and in whole samples,
// held in memory up to the bound and in a nameless temporary file past it;
// a temporary directory that cannot take the file is an error naming it.
#include "cs_etm/encoded_samples.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <vector>

#include "base/bytes.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "perf/record.h"

namespace perftk::cs_etm {
namespace {

// Sets TMPDIR for a test, and puts back what it was.
class ScopedTmpdir {
 public:
  explicit ScopedTmpdir(const std::string& dir) {
    if (const char* old = getenv("TMPDIR")) old_ = old;
    setenv("TMPDIR", dir.c_str(), 1);
  }
  ~ScopedTmpdir() {
    if (old_) {
      setenv("TMPDIR", old_->c_str(), 1);
    } else {
      unsetenv("TMPDIR");
    }
  }

 private:
  std::optional<std::string> old_;
};

// A line of `length` bytes, '\n' included, saying which sample it is.
std::string Line(int index, size_t length) {
  std::string line = std::to_string(index) + ":";
  line.resize(length - 1, 'x');
  return line + "\n";
}

// Adds samples 0 .. count-1 of lengths 8 .. 61; what was added, end to end.
std::string AddLines(EncodedSamples& samples, int count) {
  std::string added;
  for (int i = 0; i < count; ++i) {
    const std::string line = Line(i, 8 + i % 54);
    EXPECT_TRUE(samples.Add([&line](std::string& held) { held += line; }).ok());
    added += line;
  }
  return added;
}

std::vector<std::string> Pieces(const EncodedSamples& samples) {
  std::vector<std::string> pieces;
  absl::Status read = samples.ForEachPiece([&pieces](absl::string_view piece) {
    pieces.emplace_back(piece);
    return absl::OkStatus();
  });
  EXPECT_TRUE(read.ok()) << read;
  return pieces;
}

std::vector<std::string> FilesIn(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return names;
  while (dirent* entry = readdir(d)) {
    const std::string name = entry->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  closedir(d);
  return names;
}

std::string MakeTempDir() {
  std::string dir = testing::TempDir() + "/encoded_samples.XXXXXX";
  EXPECT_NE(mkdtemp(dir.data()), nullptr);
  return dir;
}

TEST(EncodedSamples, BelowTheBoundEverythingIsOnePieceInMemory) {
  EncodedSamples samples(4096);
  const std::string added = AddLines(samples, 50);
  EXPECT_EQ(samples.count(), 50u);
  EXPECT_EQ(samples.bytes(), added.size());
  EXPECT_EQ(samples.spilled_bytes(), 0u);
  EXPECT_THAT(Pieces(samples), testing::ElementsAre(added));
}

TEST(EncodedSamples, PastTheBoundSamplesGoToANamelessFileAndComeBackInOrder) {
  const std::string dir = MakeTempDir();
  ScopedTmpdir tmpdir(dir);
  constexpr size_t kBound = 100;
  EncodedSamples samples(kBound);
  const std::string added = AddLines(samples, 2000);
  EXPECT_EQ(samples.bytes(), added.size());
  EXPECT_GT(samples.spilled_bytes(), added.size() - kBound - 62);
  EXPECT_TRUE(FilesIn(dir).empty()) << "the file has a name in " << dir;

  const std::vector<std::string> pieces = Pieces(samples);
  ASSERT_GT(pieces.size(), added.size() / (kBound + 62));
  std::string all;
  for (const std::string& piece : pieces) {
    EXPECT_LE(piece.size(), kBound + 61);
    ASSERT_FALSE(piece.empty());
    EXPECT_EQ(piece.back(), '\n') << "a piece ends inside a sample";
    all += piece;
  }
  EXPECT_EQ(all, added);
  // Read again: the same.
  EXPECT_EQ(Pieces(samples), pieces);
}

TEST(EncodedSamples, PerfRecordsComeBackWholeFromEveryPiece) {
  EncodedSamples samples(1000);
  std::vector<std::vector<std::byte>> added;
  for (uint32_t i = 0; i < 500; ++i) {
    const std::vector<std::byte> body(8 * (1 + i % 37), std::byte(i & 0xff));
    absl::StatusOr<std::vector<std::byte>> record =
        perf::MakeRecordBytes(PERF_RECORD_SAMPLE, 0, body);
    ASSERT_TRUE(record.ok()) << record.status();
    ASSERT_TRUE(samples
                    .Add([&record](std::string& held) {
                      held.append(reinterpret_cast<const char*>(record->data()), record->size());
                    })
                    .ok());
    added.push_back(*std::move(record));
  }
  ASSERT_GT(samples.spilled_bytes(), 0u);
  std::vector<std::vector<std::byte>> read;
  int pieces = 0;
  absl::Status status = samples.ForEachPiece([&](absl::string_view piece) {
    ++pieces;
    return perf::ForEachRecordIn(base::AsBytes(piece.data(), piece.size()),
                                 [&read](const perf::Record& record) {
                                   read.emplace_back(record.bytes().begin(), record.bytes().end());
                                   return absl::OkStatus();
                                 });
  });
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_GT(pieces, 20);
  EXPECT_EQ(read, added);
}

TEST(EncodedSamples, AFailingPieceStopsTheReading) {
  EncodedSamples samples(64);
  AddLines(samples, 100);
  int calls = 0;
  absl::Status read = samples.ForEachPiece([&calls](absl::string_view) {
    ++calls;
    return absl::DataLossError("the output is full");
  });
  EXPECT_EQ(read, absl::DataLossError("the output is full"));
  EXPECT_EQ(calls, 1);
}

TEST(EncodedSamples, ATemporaryDirectoryThatCannotTakeTheFileIsAnErrorNamingIt) {
  const std::string missing = MakeTempDir() + "/missing";
  ScopedTmpdir tmpdir(missing);
  EncodedSamples samples(16);
  EXPECT_TRUE(samples.Add([](std::string& held) { held += "a short line\n"; }).ok());
  absl::Status over = samples.Add([](std::string& held) { held += "past the bound\n"; });
  ASSERT_FALSE(over.ok());
  EXPECT_THAT(std::string(over.message()),
              testing::HasSubstr("temporary file in " + missing + " (TMPDIR): "));
  // And stays so: nothing more is held, and nothing reads back.
  EXPECT_EQ(samples.Add([](std::string& held) { held += "x\n"; }), over);
  EXPECT_EQ(samples.ForEachPiece([](absl::string_view) { return absl::OkStatus(); }), over);
}

// Where the file system has no O_TMPFILE the file gets a name for an
// instant: none is left, and the file reads back what was written.
TEST(EncodedSamples, WithoutOTmpfileTheFileIsNamedAndRemovedAtOnce) {
  for (bool tmpfile : {true, false}) {
    const std::string dir = MakeTempDir();
    const int fd = encoded_samples_internal::OpenUnlinked(dir, tmpfile);
    ASSERT_GE(fd, 0) << dir << ": " << errno;
    EXPECT_TRUE(FilesIn(dir).empty()) << "a file is left in " << dir;
    struct stat st;
    ASSERT_EQ(fstat(fd, &st), 0);
    EXPECT_EQ(st.st_nlink, 0u);
    EXPECT_EQ(st.st_mode & 0777, 0600u);
    ASSERT_EQ(pwrite(fd, "samples", 7, 0), 7);
    char back[8] = {};
    ASSERT_EQ(pread(fd, back, 7, 0), 7);
    EXPECT_STREQ(back, "samples");
    close(fd);
  }
  errno = 0;
  EXPECT_LT(encoded_samples_internal::OpenUnlinked(MakeTempDir() + "/missing", false), 0);
  EXPECT_EQ(errno, ENOENT);
}

// A file that gives back less than was written (cut short underneath) is
// an error naming the directory, not samples lost without a word.
TEST(EncodedSamples, AFileCutShortIsAReadErrorNamingIt) {
  const std::string dir = MakeTempDir();
  ScopedTmpdir tmpdir(dir);
  EncodedSamples samples(100);
  AddLines(samples, 200);
  ASSERT_GE(samples.file_for_testing(), 0);
  ASSERT_EQ(ftruncate(samples.file_for_testing(), 150), 0);
  int pieces = 0;
  absl::Status read = samples.ForEachPiece([&pieces](absl::string_view) {
    ++pieces;
    return absl::OkStatus();
  });
  EXPECT_THAT(std::string(read.message()),
              testing::HasSubstr("cannot read back the samples of a trace block in a temporary "
                                 "file in " +
                                 dir + " (TMPDIR): "));
  EXPECT_EQ(pieces, 1) << "the first piece is whole, the second is cut";
}

}  // namespace
}  // namespace perftk::cs_etm
