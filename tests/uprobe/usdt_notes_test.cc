// .note.stapsdt parsing against readelf -n on programs the native and cross
// compilers build (tests/elf/fixtures/build.sh): 64- and 32-bit, both byte
// orders; offsets checked against the nop each probe site holds and the
// .probes section the semaphores live in.
#include "uprobe/usdt_notes.h"

#include <fstream>
#include <iterator>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "fixture_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace perftk::uprobe {
namespace {

using elf::testing::FixtureDir;
using elf::testing::MissingReason;
using elf::testing::RunShell;
using ::testing::AllOf;
using ::testing::HasSubstr;

struct Fixture {
  std::string name;
  bool is_64bit;
  bool big_endian;
  std::string nop;  // bytes of the nop <sys/sdt.h> puts at each probe
};

std::ostream& operator<<(std::ostream& os, const Fixture& f) { return os << f.name; }

const std::string kX86Nop("\x90", 1);
const std::string kA64Nop("\x1f\x20\x03\xd5", 4);
const std::string kS390Nop("\x47\x00\x00\x00", 4);

std::vector<Fixture> Fixtures() {
  return {{"u_x64", true, false, kX86Nop},       {"u_x64_O0", true, false, kX86Nop},
          {"u_x64_nopie", true, false, kX86Nop}, {"u_a64", true, false, kA64Nop},
          {"u_a64_O0", true, false, kA64Nop},    {"u_s390x", true, true, kS390Nop},
          {"u_i386", false, false, kX86Nop},     {"u_s390_31", false, true, kS390Nop}};
}

uint64_t Hex(absl::string_view text) {
  uint64_t value = 0;
  absl::ConsumePrefix(&text, "0x");
  EXPECT_TRUE(absl::SimpleHexAtoi(text, &value)) << text;
  return value;
}

// The stapsdt notes `readelf -n` prints, in order.
std::vector<UsdtNote> ReadelfNotes(const std::string& path) {
  std::vector<UsdtNote> notes;
  std::istringstream text(RunShell("readelf -nW '" + path + "'"));
  std::string line;
  while (std::getline(text, line)) {
    absl::string_view rest = absl::StripLeadingAsciiWhitespace(line);
    // With -W the provider shares the line of the note's owner.
    if (const size_t provider = line.find("Provider: "); provider != std::string::npos) {
      rest = absl::string_view(line).substr(provider + 10);
      notes.emplace_back();
      notes.back().provider = std::string(rest);
    } else if (notes.empty()) {
      continue;
    } else if (absl::ConsumePrefix(&rest, "Name: ")) {
      notes.back().name = std::string(rest);
    } else if (absl::ConsumePrefix(&rest, "Location: ")) {
      // "0x..., Base: 0x..., Semaphore: 0x..."
      std::vector<absl::string_view> parts = absl::StrSplit(rest, ", ");
      notes.back().location = Hex(parts[0]);
      notes.back().base = Hex(absl::StripPrefix(parts[1], "Base: "));
      notes.back().semaphore = Hex(absl::StripPrefix(parts[2], "Semaphore: "));
    } else if (absl::ConsumePrefix(&rest, "Arguments:")) {
      notes.back().arguments = std::string(absl::StripLeadingAsciiWhitespace(rest));
    }
  }
  return notes;
}

std::string FileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

// `sh_offset` and `sh_addr` of section `name` as readelf prints them.
std::pair<uint64_t, uint64_t> ReadelfSection(const std::string& path, const std::string& name) {
  std::istringstream text(RunShell("readelf -SW '" + path + "'"));
  std::string line;
  while (std::getline(text, line)) {
    std::vector<std::string> fields =
        absl::StrSplit(line.substr(line.find(']') + 1), ' ', absl::SkipEmpty());
    if (fields.size() > 4 && fields[0] == name) return {Hex(fields[3]), Hex(fields[2])};
  }
  ADD_FAILURE() << path << " has no section " << name;
  return {0, 0};
}

// Opens `path` and reads its notes; an error names what failed.
absl::StatusOr<std::vector<UsdtNote>> NotesOf(const std::string& path) {
  absl::StatusOr<std::unique_ptr<elf::ElfFile>> file = elf::ElfFile::Open(path);
  if (!file.ok()) return file.status();
  return ReadUsdtNotes(**file);
}

// Opens `path`, reads and places its notes.
absl::StatusOr<std::vector<UsdtProbe>> ProbesOf(const std::string& path) {
  absl::StatusOr<std::unique_ptr<elf::ElfFile>> file = elf::ElfFile::Open(path);
  if (!file.ok()) return file.status();
  absl::StatusOr<std::vector<UsdtNote>> notes = ReadUsdtNotes(**file);
  if (!notes.ok()) return notes.status();
  return PlaceUsdtNotes(**file, *std::move(notes));
}

class UsdtNotesTest : public ::testing::TestWithParam<Fixture> {
 protected:
  void SetUp() override {
    ASSERT_FALSE(FixtureDir().empty());
    const std::string missing = MissingReason(GetParam().name);
    if (!missing.empty()) GTEST_SKIP() << GetParam().name << " not built: " << missing;
    path_ = FixtureDir() + "/" + GetParam().name;
  }
  std::string path_;
};

TEST_P(UsdtNotesTest, NotesEqualReadelf) {
  absl::StatusOr<std::unique_ptr<elf::ElfFile>> file = elf::ElfFile::Open(path_);
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_EQ((*file)->is_64bit(), GetParam().is_64bit);
  EXPECT_EQ((*file)->big_endian(), GetParam().big_endian);
  absl::StatusOr<std::vector<UsdtNote>> notes = ReadUsdtNotes(**file);
  ASSERT_TRUE(notes.ok()) << notes.status();
  const std::vector<UsdtNote> truth = ReadelfNotes(path_);
  ASSERT_FALSE(truth.empty());
  ASSERT_EQ(notes->size(), truth.size());
  for (size_t i = 0; i < truth.size(); ++i) {
    SCOPED_TRACE(truth[i].name);
    EXPECT_EQ((*notes)[i].provider, truth[i].provider);
    EXPECT_EQ((*notes)[i].name, truth[i].name);
    EXPECT_EQ((*notes)[i].arguments, truth[i].arguments);
    EXPECT_EQ((*notes)[i].location, truth[i].location);
    EXPECT_EQ((*notes)[i].base, truth[i].base);
    EXPECT_EQ((*notes)[i].semaphore, truth[i].semaphore);
  }
}

TEST_P(UsdtNotesTest, EveryProbeOffsetHoldsTheNopAndSemaphoresAreInProbes) {
  absl::StatusOr<std::vector<UsdtProbe>> probes = ProbesOf(path_);
  ASSERT_TRUE(probes.ok()) << probes.status();
  const std::string bytes = FileBytes(path_);
  const auto [probes_offset, probes_address] = ReadelfSection(path_, ".probes");
  int semaphores = 0;
  for (const UsdtProbe& probe : *probes) {
    SCOPED_TRACE(probe.FullName());
    EXPECT_EQ(probe.address, probe.note.location);  // not prelinked
    ASSERT_LT(probe.offset, bytes.size());
    EXPECT_EQ(bytes.substr(probe.offset, GetParam().nop.size()), GetParam().nop);
    if (probe.note.semaphore == 0) {
      EXPECT_EQ(probe.semaphore_offset, 0u);
      continue;
    }
    ++semaphores;
    EXPECT_EQ(probe.semaphore_offset, probe.note.semaphore - probes_address + probes_offset);
  }
  EXPECT_EQ(semaphores, 1);
}

TEST_P(UsdtNotesTest, AnInlinedProbeHasOneNotePerSite) {
  absl::StatusOr<std::vector<UsdtNote>> notes = NotesOf(path_);
  ASSERT_TRUE(notes.ok()) << notes.status();
  if (GetParam().name == "u_i386" || GetParam().name == "u_s390_31") return;  // one probe
  std::vector<uint64_t> sites;
  for (const UsdtNote& note : *notes) {
    if (note.name == "inlined") sites.push_back(note.location);
  }
  ASSERT_EQ(sites.size(), 2u);
  EXPECT_NE(sites[0], sites[1]);
}

INSTANTIATE_TEST_SUITE_P(Compilers, UsdtNotesTest, ::testing::ValuesIn(Fixtures()),
                         [](const auto& info) { return info.param.name; });

// Rewrites the three addresses of every note of `path` (64-bit
// little-endian) as `location - shift`, `base - shift`, `semaphore - shift`
// (0 stays 0), as if the file had been prelinked after the notes were
// written; returns the copy's path.
std::string ShiftNotes(const std::string& path, uint64_t shift, bool zero_base) {
  std::string bytes = FileBytes(path);
  absl::StatusOr<std::vector<UsdtNote>> notes = NotesOf(path);
  if (!notes.ok()) return "";
  for (const UsdtNote& note : *notes) {
    const size_t desc = note.file_offset + 12 + 8;  // header, "stapsdt\0"
    const uint64_t fields[3] = {note.location - shift, zero_base ? 0 : note.base - shift,
                                note.semaphore == 0 ? 0 : note.semaphore - shift};
    for (int i = 0; i < 3; ++i) {
      for (int b = 0; b < 8; ++b) bytes[desc + 8 * i + b] = static_cast<char>(fields[i] >> (8 * b));
    }
  }
  const std::string copy = path + absl::StrCat(".shifted", zero_base ? "0" : "");
  WriteFile(copy, bytes);
  return copy;
}

TEST(UsdtNotesPrelinkTest, TheStapsdtBaseDifferenceMovesLocationAndSemaphore) {
  ASSERT_FALSE(FixtureDir().empty());
  const std::string original = FixtureDir() + "/u_x64";
  absl::StatusOr<std::vector<UsdtProbe>> expected = ProbesOf(original);
  ASSERT_TRUE(expected.ok()) << expected.status();
  absl::StatusOr<std::vector<UsdtProbe>> probes = ProbesOf(ShiftNotes(original, 0x1000, false));
  ASSERT_TRUE(probes.ok()) << probes.status();
  ASSERT_EQ(probes->size(), expected->size());
  for (size_t i = 0; i < probes->size(); ++i) {
    EXPECT_EQ((*probes)[i].note.location + 0x1000, (*expected)[i].note.location);
    EXPECT_EQ((*probes)[i].address, (*expected)[i].address);
    EXPECT_EQ((*probes)[i].offset, (*expected)[i].offset);
    EXPECT_EQ((*probes)[i].semaphore_address, (*expected)[i].semaphore_address);
    EXPECT_EQ((*probes)[i].semaphore_offset, (*expected)[i].semaphore_offset);
  }
}

TEST(UsdtNotesPrelinkTest, ANoteWithoutBaseIsNotAdjusted) {
  ASSERT_FALSE(FixtureDir().empty());
  absl::StatusOr<std::vector<UsdtProbe>> probes =
      ProbesOf(ShiftNotes(FixtureDir() + "/u_x64", 0, true));
  ASSERT_TRUE(probes.ok()) << probes.status();
  for (const UsdtProbe& probe : *probes) EXPECT_EQ(probe.address, probe.note.location);
}

TEST(UsdtNotesErrorTest, AFileWithoutNotesHasNone) {
  ASSERT_FALSE(FixtureDir().empty());
  absl::StatusOr<std::vector<UsdtNote>> notes = NotesOf(FixtureDir() + "/t_pie");
  ASSERT_TRUE(notes.ok()) << notes.status();
  EXPECT_TRUE(notes->empty());
}

// Reads a copy of u_x64 whose second note claims a descriptor of `size`
// bytes; the error must name the copy and the note's offset.
std::string ErrorWithSecondDescriptorSize(uint32_t size) {
  const std::string path = FixtureDir() + "/u_x64";
  absl::StatusOr<std::vector<UsdtNote>> notes = NotesOf(path);
  if (!notes.ok() || notes->size() < 2) return "cannot read " + path;
  const uint64_t note_offset = (*notes)[1].file_offset;
  std::string bytes = FileBytes(path);
  for (int b = 0; b < 4; ++b) bytes[note_offset + 4 + b] = static_cast<char>(size >> (8 * b));
  const std::string copy = absl::StrCat(path, ".descriptor_", size);
  WriteFile(copy, bytes);
  absl::StatusOr<std::vector<UsdtNote>> broken = NotesOf(copy);
  if (broken.ok()) return "no error";
  EXPECT_THAT(broken.status().message(),
              AllOf(HasSubstr(copy), HasSubstr(absl::StrCat("offset 0x", absl::Hex(note_offset)))));
  return std::string(broken.status().message());
}

TEST(UsdtNotesErrorTest, ADescriptorPastTheSectionNamesFileAndOffset) {
  ASSERT_FALSE(FixtureDir().empty());
  EXPECT_THAT(ErrorWithSecondDescriptorSize(0x100000), HasSubstr("descriptor size 1048576"));
}

TEST(UsdtNotesErrorTest, ADescriptorTooShortForItsFieldsIsRefused) {
  ASSERT_FALSE(FixtureDir().empty());
  // 24 bytes of addresses and 4 of strings: the name and arguments are cut.
  EXPECT_THAT(ErrorWithSecondDescriptorSize(28), HasSubstr("NUL-terminated"));
}

// Random bytes written over the notes of 64-bit little-endian and 32-bit
// big-endian files: every result is notes or an error naming the file, never
// a crash (run under ASan in the sanitizer build).
TEST(UsdtNotesErrorTest, DamagedNotesAreReadOrRefusedNeverMisread) {
  ASSERT_FALSE(FixtureDir().empty());
  for (const char* fixture : {"u_x64", "u_s390_31"}) {
    SCOPED_TRACE(fixture);
    if (!MissingReason(fixture).empty()) continue;
    const std::string path = FixtureDir() + "/" + fixture;
    const std::string original = FileBytes(path);
    const auto [section_offset, unused] = ReadelfSection(path, ".note.stapsdt");
    ASSERT_GT(section_offset, 0u);
    std::mt19937 random(20261124);
    int refused = 0;
    for (int round = 0; round < 3000; ++round) {
      std::string bytes = original;
      const int changes = 1 + static_cast<int>(random() % 4);
      for (int i = 0; i < changes; ++i) {
        bytes[section_offset + random() % 96] = static_cast<char>(random());
      }
      absl::StatusOr<std::unique_ptr<elf::ElfFile>> file =
          elf::ElfFile::FromMemory("damaged", bytes);
      ASSERT_TRUE(file.ok()) << file.status();
      absl::StatusOr<std::vector<UsdtNote>> notes = ReadUsdtNotes(**file);
      absl::Status status = notes.status();
      if (notes.ok()) status = PlaceUsdtNotes(**file, *std::move(notes)).status();
      if (!status.ok()) {
        ++refused;
        EXPECT_THAT(status.message(), HasSubstr("damaged"));
      }
    }
    EXPECT_GT(refused, 0);
  }
}

}  // namespace
}  // namespace perftk::uprobe
