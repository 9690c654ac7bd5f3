#include "unwind/sample_memory.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "gtest/gtest.h"
#include "machine/dso.h"
#include "machine/map.h"
#include "machine/maps.h"
#include "unwind/module_files.h"

namespace perftk::unwind {
namespace {

constexpr uint64_t kSp = 0x7ffc0000;

std::vector<std::byte> Words(std::initializer_list<uint64_t> words) {
  std::vector<std::byte> bytes(words.size() * 8);
  size_t i = 0;
  for (uint64_t w : words) std::memcpy(bytes.data() + 8 * i++, &w, 8);
  return bytes;
}

// The 8 bytes of `path` at `offset`, read directly.
uint64_t FileWord(const char* path, uint64_t offset) {
  uint64_t word = 0;
  const int fd = open(path, O_RDONLY);
  EXPECT_EQ(pread(fd, &word, 8, static_cast<off_t>(offset)), 8);
  close(fd);
  return word;
}

class SampleMemoryTest : public ::testing::Test {
 protected:
  // Maps the test binary itself (an ELF file) at 0x400000 from file offset
  // 0x1000, and an anonymous page above it.
  void SetUp() override {
    ASSERT_GT(readlink("/proc/self/exe", exe_, sizeof exe_ - 1), 0);
    machine::Map file;
    file.start = 0x400000;
    file.end = 0x402000;
    file.pgoff = 0x1000;
    file.dso = dsos_.Intern(exe_, base::BuildId(), machine::FileId{}, false);
    machine::Map anon;
    anon.start = 0x402000;
    anon.end = 0x403000;
    anon.pgoff = anon.start;
    anon.kind = machine::MapKind::kAnon;
    anon.dso = dsos_.Intern("//anon", base::BuildId(), machine::FileId{}, false);
    for (const machine::Map& map : {file, anon}) {
      ASSERT_TRUE(maps_.Mutate([&](machine::Maps::Editor& e) { return e.Insert(map); }).ok());
    }
  }

  char exe_[4096] = {};
  machine::DsoTable dsos_;
  machine::Maps maps_;
  ModuleFiles files_{"", {}};
};

TEST_F(SampleMemoryTest, ReadsTheStackCopyFromTheStackPointerOn) {
  const std::vector<std::byte> stack = Words({11, 22, 33});
  SampleMemory memory(kSp, stack, &maps_, files_);
  uint64_t word = 0;
  EXPECT_TRUE(memory.Read(kSp, word));
  EXPECT_EQ(word, 11u);
  EXPECT_TRUE(memory.Read(kSp + 16, word));
  EXPECT_EQ(word, 33u);
  EXPECT_TRUE(memory.Read(kSp + 4, word));  // unaligned: halves of 11 and 22
  EXPECT_EQ(word, uint64_t{22} << 32);
  EXPECT_FALSE(memory.read_past_stack());
}

TEST_F(SampleMemoryTest, AWordReachingPastTheCopyFailsAndSaysSo) {
  const std::vector<std::byte> stack = Words({11, 22, 33});
  SampleMemory memory(kSp, stack, &maps_, files_);
  uint64_t word = 0;
  EXPECT_FALSE(memory.Read(kSp + 17, word));  // 7 of its 8 bytes copied
  EXPECT_TRUE(memory.read_past_stack());
}

TEST_F(SampleMemoryTest, BelowTheStackPointerIsNotTheStackCopy) {
  const std::vector<std::byte> stack = Words({11});
  SampleMemory memory(kSp, stack, &maps_, files_);
  uint64_t word = 0;
  EXPECT_FALSE(memory.Read(kSp - 8, word));
  EXPECT_FALSE(memory.read_past_stack());
  EXPECT_FALSE(memory.Read(UINT64_MAX - 3, word));  // wraps: no crash, no read
}

TEST_F(SampleMemoryTest, ReadsMappedFilesAtTheirFileOffset) {
  SampleMemory memory(kSp, {}, &maps_, files_);
  uint64_t word = 0;
  ASSERT_TRUE(memory.Read(0x400010, word));
  EXPECT_EQ(word, FileWord(exe_, 0x1010));
  ASSERT_TRUE(memory.Read(0x401ff8, word));  // the map's last word
  EXPECT_EQ(word, FileWord(exe_, 0x2ff8));
  EXPECT_FALSE(memory.Read(0x401ffc, word));  // runs past the map's end
  EXPECT_FALSE(memory.Read(0x402000, word));  // anonymous memory was not recorded
  EXPECT_FALSE(memory.Read(0x300000, word));  // nothing mapped
  EXPECT_FALSE(memory.read_past_stack());
}

TEST_F(SampleMemoryTest, AFileOfAnotherBuildIdIsNotRead) {
  const machine::Dso* other = dsos_.Intern(exe_, base::BuildId::FromBytes(std::string(20, '\x42')),
                                           machine::FileId{}, false);
  machine::Map map;
  map.start = 0x500000;
  map.end = 0x501000;
  map.dso = other;
  ASSERT_TRUE(maps_.Mutate([&](machine::Maps::Editor& e) { return e.Insert(map); }).ok());
  SampleMemory memory(kSp, {}, &maps_, files_);
  uint64_t word = 0;
  EXPECT_FALSE(memory.Read(0x500000, word));
  EXPECT_TRUE(memory.Read(0x400000, word));
}

TEST_F(SampleMemoryTest, WithoutAnAddressSpaceOnlyTheStackIsRead) {
  const std::vector<std::byte> stack = Words({5});
  SampleMemory memory(kSp, stack, nullptr, files_);
  uint64_t word = 0;
  EXPECT_TRUE(memory.Read(kSp, word));
  EXPECT_FALSE(memory.Read(0x400000, word));
}

}  // namespace
}  // namespace perftk::unwind
