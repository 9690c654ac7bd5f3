#include "build_ids/build_id_tool.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "../testing/collecting_sink.h"
#include "../testing/temp_dir_test.h"
#include "absl/strings/escaping.h"
#include "elf/build_id.h"
#include "elf/elf_file.h"
#include "perf/features.h"
#include "perf/record_encoders.h"
#include "perf/sample.h"
#include "pipeline/tool_feed.h"

namespace perftk::build_ids {
namespace {

class Collect : public testing::CollectingSink {
 public:
  // The HEADER_BUILD_ID records emitted, as "filename=hexid".
  std::vector<std::string> Ids() const {
    std::vector<std::string> ids;
    for (const perf::OwnedRecord& record : records) {
      if (record.view().type() != PERF_RECORD_HEADER_BUILD_ID) continue;
      absl::StatusOr<perf::HeaderBuildIdRecord> view =
          perf::HeaderBuildIdRecord::From(record.view());
      EXPECT_TRUE(view.ok());
      base::Bytes id = view->build_id();
      ids.push_back(absl::StrCat(view->filename(), "=",
                                 absl::BytesToHexString(absl::string_view(
                                     reinterpret_cast<const char*>(id.data()), id.size()))));
    }
    return ids;
  }
};

constexpr uint64_t kSampleType = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;

perf::EventAttr Attr() {
  perf::EventAttr attr;
  attr.SetU32(attr_offset::kType, PERF_TYPE_SOFTWARE);
  attr.set_sample_type(kSampleType);
  attr.SetU64(attr_offset::kFlags, 1ULL << kAttrFlagSampleIdAll);
  attr.ids() = {7};
  return attr;
}

std::vector<std::byte> StringSection(const std::string& text) {
  std::vector<std::byte> section;
  const uint32_t size = static_cast<uint32_t>(base::AlignUp(text.size() + 1, 64));
  base::Append(section, size);
  std::vector<std::byte> padded(size);
  std::memcpy(padded.data(), text.data(), text.size());
  base::AppendBytes(section, padded);
  return section;
}

// The path of this test binary, its file id and its build id (hex).
struct SelfFile {
  std::string path;
  struct stat st;
  std::string hex_id;
};
SelfFile Self() {
  SelfFile self;
  self.path = std::filesystem::read_symlink("/proc/self/exe").string();
  EXPECT_EQ(stat(self.path.c_str(), &self.st), 0);
  absl::StatusOr<std::unique_ptr<elf::ElfFile>> elf = elf::ElfFile::Open(self.path);
  EXPECT_TRUE(elf.ok());
  self.hex_id = (*elf)->BuildId().value_or(base::BuildId()).ToHex();
  return self;
}

BuildIdSettings Scope(BuildIdScope scope) {
  BuildIdSettings settings;
  settings.scope = scope;
  return settings;
}
BuildIdSettings OnlyWithoutIds() {
  BuildIdSettings settings;
  settings.only_without_ids = true;
  return settings;
}
BuildIdSettings SysRoot(const std::string& root) {
  BuildIdSettings settings;
  settings.sys_root = root;
  return settings;
}

class BuildIdToolTest : public testing::TempDirTest {
 protected:
  void Start(BuildIdSettings settings, bool recorded_here = true) {
    feed_.reset();  // before the tool it feeds
    tool_ = std::make_unique<BuildIdTool>(std::move(settings), warnings_);
    feed_ = std::make_unique<pipeline::ToolFeed>(*tool_);
    attr_ = Attr();
    header_.events = perf::EventList({attr_});
    struct utsname here;
    ASSERT_EQ(uname(&here), 0);
    header_.features[HEADER_HOSTNAME] = StringSection(recorded_here ? here.nodename : "elsewhere");
    header_.features[HEADER_OSRELEASE] = StringSection(here.release);
    ASSERT_TRUE(feed_->Begin(header_).ok());
  }
  void Feed(const std::vector<std::byte>& bytes) {
    ASSERT_TRUE(feed_->Process(perf::Record(bytes, 0x100), out_).ok());
  }
  std::vector<std::byte> Mmap2(const std::string& path, const struct stat& st, uint64_t start,
                               uint16_t misc = PERF_RECORD_MISC_USER) {
    perf::Mmap2Fields fields;
    fields.pid = fields.tid = 42;
    fields.start = start;
    fields.len = 0x10000;
    fields.maj = major(st.st_dev);
    fields.min = minor(st.st_dev);
    fields.ino = st.st_ino;
    fields.prot = 5;
    fields.flags = 2;
    fields.filename = path;
    std::vector<std::byte> trailer;
    perf::SampleId id;
    id.pid = id.tid = 42;
    perf::EncodeSampleId(perf::SampleFormat::Of(attr_), id, trailer);
    absl::StatusOr<std::vector<std::byte>> bytes = perf::EncodeMmap2(fields, misc, trailer);
    EXPECT_TRUE(bytes.ok());
    return *bytes;
  }
  std::vector<std::byte> SampleAt(uint64_t ip, uint16_t misc = PERF_RECORD_MISC_USER) {
    perf::Sample sample;
    sample.ip = ip;
    sample.pid = sample.tid = 42;
    std::vector<std::byte> body;
    perf::EncodeSample(perf::SampleFormat::Of(attr_), sample, body);
    absl::StatusOr<std::vector<std::byte>> bytes =
        perf::MakeRecordBytes(PERF_RECORD_SAMPLE, misc, body);
    EXPECT_TRUE(bytes.ok());
    return *bytes;
  }

  base::WarningList warnings_;
  std::unique_ptr<BuildIdTool> tool_;
  std::unique_ptr<pipeline::ToolFeed> feed_;  // keeps the model, as the pipeline does
  perf::Header header_;
  perf::EventAttr attr_;
  Collect out_;
};

TEST_F(BuildIdToolTest, TheFileRecordedGivesItsIdBeforeItsFirstSampleOnly) {
  SelfFile self = Self();
  ASSERT_FALSE(self.hex_id.empty()) << "the test binary has a build-id note";
  Start({});
  Feed(Mmap2(self.path, self.st, 0x400000));
  EXPECT_TRUE(out_.Ids().empty()) << "not hit yet";
  Feed(SampleAt(0x401234));
  Feed(SampleAt(0x401238));
  EXPECT_EQ(out_.Ids(), std::vector<std::string>{self.path + "=" + self.hex_id});
  ASSERT_EQ(out_.records.size(), 4u);
  EXPECT_EQ(out_.records[1].view().type(), PERF_RECORD_HEADER_BUILD_ID) << "before the sample";
  EXPECT_EQ(tool_->stats().added, 1u);
}

TEST_F(BuildIdToolTest, AllScopeGivesTheIdBeforeTheMmap) {
  SelfFile self = Self();
  Start(Scope(BuildIdScope::kAll));
  Feed(Mmap2(self.path, self.st, 0x400000));
  ASSERT_EQ(out_.records.size(), 2u);
  EXPECT_EQ(out_.records[0].view().type(), PERF_RECORD_HEADER_BUILD_ID);
  EXPECT_EQ(out_.Ids(), std::vector<std::string>{self.path + "=" + self.hex_id});
}

TEST_F(BuildIdToolTest, AFileReplacedSinceTheRecordingGetsNoIdButAWarning) {
  SelfFile self = Self();
  struct stat other = self.st;
  other.st_ino += 1;
  Start({});
  Feed(Mmap2(self.path, other, 0x400000));
  Feed(SampleAt(0x401234));
  EXPECT_TRUE(out_.Ids().empty());
  ASSERT_EQ(warnings_.lines().size(), 1u);
  EXPECT_NE(warnings_.lines()[0].find("replaced since the recording"), std::string::npos);
  EXPECT_EQ(tool_->stats().without, 1u);
}

// Issue 30, D3: a file rewritten in place (cp over it, cat >) keeps its
// inode; its mtime tells that it changed after the recording ended.
TEST_F(BuildIdToolTest, AFileChangedAfterTheRecordingEndedGetsNoIdButAWarning) {
  SelfFile self = Self();
  const int64_t changed = int64_t{self.st.st_mtim.tv_sec} * 1'000'000'000 + self.st.st_mtim.tv_nsec;
  BuildIdSettings before;
  before.recording_ended_ns = changed - 1;  // the binary changed after the recording
  Start(before);
  Feed(Mmap2(self.path, self.st, 0x400000));
  Feed(SampleAt(0x401234));
  EXPECT_TRUE(out_.Ids().empty());
  ASSERT_EQ(warnings_.lines().size(), 1u);
  EXPECT_NE(warnings_.lines()[0].find("modified since the recording"), std::string::npos)
      << warnings_.lines()[0];

  BuildIdSettings after;
  after.recording_ended_ns = changed;  // unchanged since the recording
  out_.records.clear();
  Start(after);
  Feed(Mmap2(self.path, self.st, 0x400000));
  Feed(SampleAt(0x401234));
  EXPECT_EQ(out_.Ids(), std::vector<std::string>{self.path + "=" + self.hex_id});
}

TEST_F(BuildIdToolTest, AnIdInTheMmap2ComesFirst) {
  SelfFile self = Self();
  struct stat other = self.st;
  other.st_ino += 1;  // the file would not do
  Start({});
  std::vector<std::byte> mmap =
      Mmap2(self.path, other, 0x400000, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID);
  // With MMAP_BUILD_ID, maj..ino_generation hold the id's size and the id.
  std::byte* id = mmap.data() + 8 + 8 + 24;
  std::memset(id, 0, 24);
  id[0] = std::byte{8};
  for (int i = 0; i < 8; ++i) id[4 + i] = std::byte(0xa0 + i);
  Feed(mmap);
  Feed(SampleAt(0x401234));
  EXPECT_EQ(out_.Ids(), std::vector<std::string>{self.path + "=a0a1a2a3a4a5a6a7"});
  EXPECT_TRUE(warnings_.lines().empty());
}

TEST_F(BuildIdToolTest, AnInputThatNamesTheDsoKeepsItsOwn) {
  SelfFile self = Self();
  perf::BuildIdEntry entry;
  entry.pid = -1;
  entry.misc = PERF_RECORD_MISC_USER;
  entry.build_id = *base::BuildId::FromHex("0102");
  entry.filename = self.path;
  perf::AppendBuildIdEntry(entry, header_.features[HEADER_BUILD_ID]);
  Start({});
  Feed(Mmap2(self.path, self.st, 0x400000));
  Feed(SampleAt(0x401234));
  EXPECT_TRUE(out_.Ids().empty());
  EXPECT_EQ(tool_->stats().had, 1u);
  EXPECT_FALSE(tool_->PassesAllThrough());
}

TEST_F(BuildIdToolTest, OnlyWithoutIdsPassesAnInputWithIdsThrough) {
  perf::BuildIdEntry entry;
  entry.build_id = *base::BuildId::FromHex("01");
  entry.filename = "/usr/bin/other";
  perf::AppendBuildIdEntry(entry, header_.features[HEADER_BUILD_ID]);
  Start(OnlyWithoutIds());
  EXPECT_TRUE(tool_->PassesAllThrough());
}

// A note as /sys/kernel/notes holds it: namesz, descsz, type, "GNU\0", id.
std::string GnuNote(const std::string& id, uint32_t type = 3) {
  std::string note(12, '\0');
  const uint32_t words[3] = {4, static_cast<uint32_t>(id.size()), type};
  std::memcpy(note.data(), words, 12);
  note += std::string("GNU\0", 4) + id;
  note.resize((note.size() + 3) / 4 * 4, '\0');
  return note;
}

TEST_F(BuildIdToolTest, TheKernelsIdComesFromSysWhenRecordedHere) {
  std::filesystem::create_directories(Path("sys/kernel"));
  std::ofstream(Path("sys/kernel/notes"), std::ios::binary)
      << GnuNote("", 1) + GnuNote(
                              "\x12\x34\x56\x78\x9a\xbc\xde\xf0\x11\x22\x33\x44\x55\x66\x77"
                              "\x88\x99\xaa\xbb\xcc");
  struct stat none {};
  Start(SysRoot(Path("sys")));
  Feed(Mmap2("[kernel.kallsyms]_text", none, 0xffffffff81000000, PERF_RECORD_MISC_KERNEL));
  Feed(SampleAt(0xffffffff81001000, PERF_RECORD_MISC_KERNEL));
  EXPECT_EQ(out_.Ids(),
            std::vector<std::string>{"[kernel.kallsyms]=123456789abcdef0112233445566778899aabbcc"});
}

TEST_F(BuildIdToolTest, TheKernelOfAnotherMachineGetsNoIdFromThisOne) {
  std::filesystem::create_directories(Path("sys/kernel"));
  std::ofstream(Path("sys/kernel/notes"), std::ios::binary) << GnuNote("\x01\x02\x03\x04");
  struct stat none {};
  Start(SysRoot(Path("sys")), /*recorded_here=*/false);
  Feed(Mmap2("[kernel.kallsyms]_text", none, 0xffffffff81000000, PERF_RECORD_MISC_KERNEL));
  Feed(SampleAt(0xffffffff81001000, PERF_RECORD_MISC_KERNEL));
  EXPECT_TRUE(out_.Ids().empty());
  ASSERT_EQ(warnings_.lines().size(), 1u);
  EXPECT_NE(warnings_.lines()[0].find("another machine"), std::string::npos);
}

// Issue 30, D1: a module name the recording chose must not take the notes
// lookup out of <sys>/module, and the notes file must be a small regular
// file: a FIFO hung the run, /dev/zero ate all memory.
TEST_F(BuildIdToolTest, AModuleNameThatLeavesSysModuleIsRefused) {
  std::filesystem::create_directories(Path("sys/module"));
  std::filesystem::create_directories(Path("evil/notes"));
  ASSERT_EQ(mkfifo(Path("evil/notes/.note.gnu.build-id").c_str(), 0600), 0);
  struct stat none {};
  Start(SysRoot(Path("sys")));
  Feed(Mmap2("[../../evil]", none, 0xffffffffc0000000, PERF_RECORD_MISC_KERNEL));
  Feed(SampleAt(0xffffffffc0000100, PERF_RECORD_MISC_KERNEL));
  EXPECT_TRUE(out_.Ids().empty());
  ASSERT_EQ(warnings_.lines().size(), 1u);
  EXPECT_NE(warnings_.lines()[0].find("'..' component: refused"), std::string::npos)
      << warnings_.lines()[0];
}

TEST_F(BuildIdToolTest, ModuleNotesThatAreNotASmallRegularFileGiveNoId) {
  std::filesystem::create_directories(Path("sys/module/fifo/notes"));
  ASSERT_EQ(mkfifo(Path("sys/module/fifo/notes/.note.gnu.build-id").c_str(), 0600), 0);
  std::filesystem::create_directories(Path("sys/module/zero/notes"));
  std::filesystem::create_symlink("/dev/zero", Path("sys/module/zero/notes/.note.gnu.build-id"));
  std::filesystem::create_directories(Path("sys/module/big/notes"));
  std::ofstream(Path("sys/module/big/notes/.note.gnu.build-id"), std::ios::binary)
      << std::string((1 << 20) + 1, '\0');
  struct stat none {};
  Start(SysRoot(Path("sys")));
  uint64_t start = 0xffffffffc0000000;
  for (const char* name : {"[fifo]", "[zero]", "[big]"}) {
    Feed(Mmap2(name, none, start, PERF_RECORD_MISC_KERNEL));
    Feed(SampleAt(start + 0x100, PERF_RECORD_MISC_KERNEL));
    start += 0x100000;
  }
  EXPECT_TRUE(out_.Ids().empty());
  ASSERT_EQ(warnings_.lines().size(), 3u);
  EXPECT_NE(warnings_.lines()[0].find("is a FIFO"), std::string::npos) << warnings_.lines()[0];
  EXPECT_NE(warnings_.lines()[1].find("is a character device"), std::string::npos)
      << warnings_.lines()[1];
  EXPECT_NE(warnings_.lines()[2].find("larger than"), std::string::npos) << warnings_.lines()[2];
}

TEST_F(BuildIdToolTest, AUserPathWithDotDotIsRefusedAndDataMappingsAreSkipped) {
  SelfFile self = Self();
  std::filesystem::path dir = std::filesystem::path(self.path).parent_path();
  const std::string around = (dir / ".." / dir.filename() / "x").string();
  Start(Scope(BuildIdScope::kAll));
  // The test binary itself, named through "..": refused though it exists.
  Feed(Mmap2(around + "/../" + std::filesystem::path(self.path).filename().string(), self.st,
             0x400000));
  EXPECT_TRUE(out_.Ids().empty());
  ASSERT_EQ(warnings_.lines().size(), 1u);
  EXPECT_NE(warnings_.lines()[0].find("'..' component: refused"), std::string::npos);
  // A data mapping of the same file: no id looked up, no warning.
  std::vector<std::byte> data = Mmap2(self.path, self.st, 0x800000);
  const size_t prot_at = 8 + 8 + 24 + 24;    // header, pid/tid, start..pgoff, maj..ino_generation
  std::memset(data.data() + prot_at, 0, 4);  // PROT_NONE: not executable
  Feed(data);
  EXPECT_TRUE(out_.Ids().empty());
  EXPECT_EQ(warnings_.lines().size(), 1u);
}

TEST(GnuBuildIdInNotes, FindsTheGnuNoteAmongOthersAndRefusesCutShortOnes) {
  EXPECT_EQ(elf::GnuBuildIdInNotes(GnuNote("\x01\x02\x03", 1) + GnuNote("\xaa\xbb")),
            base::BuildId::FromHex("aabb"));
  EXPECT_EQ(elf::GnuBuildIdInNotes(GnuNote("\x01\x02\x03", 1)), std::nullopt);
  std::string cut = GnuNote("\xaa\xbb\xcc\xdd\xee");
  EXPECT_EQ(elf::GnuBuildIdInNotes(cut.substr(0, cut.size() - 4)), std::nullopt);
  EXPECT_EQ(elf::GnuBuildIdInNotes(""), std::nullopt);
}

}  // namespace
}  // namespace perftk::build_ids
