#include "profile/line_reader.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace perftk::profile {
namespace {

// Lines across many refills of the reader's buffer come out whole.
TEST(LineReader, LongFileReadsLineByLine) {
  char path[] = "/tmp/perftk_line_reader_XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  std::string expected;
  {
    std::ofstream out(path);
    for (int i = 0; i < 200000; ++i) {
      std::string line = std::string(static_cast<size_t>(i % 97), 'x') + std::to_string(i);
      out << line << "\n";
      expected += line + "|";
    }
    out << "last";  // no newline
    expected += "last|";
  }
  absl::StatusOr<LineReader> reader = LineReader::Open(path, "profile");
  ASSERT_TRUE(reader.ok()) << reader.status();
  std::string got;
  while (true) {
    absl::StatusOr<std::optional<absl::string_view>> line = reader->Next();
    ASSERT_TRUE(line.ok());
    if (!*line) break;
    got += std::string(**line) + "|";
  }
  EXPECT_EQ(got, expected);
  EXPECT_EQ(reader->line_number(), 200001u);
  unlink(path);
}

TEST(LineReader, TooLongLineIsAnError) {
  LineReader reader =
      LineReader::FromText("t", "ok\n" + std::string(LineReader::kMaxLine + 1, 'a') + "\n");
  ASSERT_TRUE(reader.Next().ok());
  absl::StatusOr<std::optional<absl::string_view>> line = reader.Next();
  EXPECT_THAT(line.status().message(), ::testing::HasSubstr("t: line 2: longer than"));
}

TEST(LineReader, MissingFileNamesIt) {
  absl::StatusOr<LineReader> reader = LineReader::Open("/nonexistent/p.afdo", "profile");
  EXPECT_THAT(reader.status().message(), ::testing::HasSubstr("/nonexistent/p.afdo"));
}

}  // namespace
}  // namespace perftk::profile
