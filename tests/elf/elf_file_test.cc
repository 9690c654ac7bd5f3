// ElfFile on bad input: every case is an error naming the file and the
// problem, never a crash.
#include "elf/elf_file.h"

#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/interrupt.h"
#include "fixture_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace perftk::elf {
namespace {

using ::testing::AllOf;
using testing::FixtureDir;
using ::testing::HasSubstr;
using testing::RunShell;

std::string WriteFile(const std::string& name, const std::string& bytes) {
  const std::string path = FixtureDir() + "/" + name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(ElfFile, MissingFile) {
  auto file = ElfFile::Open(FixtureDir() + "/does-not-exist");
  ASSERT_FALSE(file.ok());
  EXPECT_TRUE(absl::IsNotFound(file.status()));
  EXPECT_THAT(file.status().message(), HasSubstr("does-not-exist: cannot open"));
}

TEST(ElfFile, Directory) {
  auto file = ElfFile::Open(FixtureDir());
  ASSERT_FALSE(file.ok());
  EXPECT_THAT(file.status().message(), HasSubstr("is a directory"));
}

TEST(ElfFile, NotElf) {
  auto file = ElfFile::Open(WriteFile("script.sh", "#!/bin/sh\necho hi\n"));
  ASSERT_FALSE(file.ok());
  EXPECT_THAT(file.status().message(), AllOf(HasSubstr("script.sh"), HasSubstr("not an ELF")));
  // The file may be any a recording names: none of its bytes are quoted.
  EXPECT_THAT(file.status().message(), ::testing::Not(HasSubstr("#!/")));
}

// Issue 30, D10: a binary truncated while libelf has it mapped ends the run
// by SIGBUS, and the message names the file (libelf's mapping is noted for
// the SIGBUS handler, base/interrupt.h).
TEST(ElfFileDeathTest, AFileTruncatedWhileMappedIsNamed) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  // The threadsafe style runs this body again in the child, which dies by
  // the signal: its copy is its own (by pid) and gone before it dies, and
  // it never asks for the ELF fixtures (their folder would be left behind).
  const std::string copy = absl::StrCat(::testing::TempDir(), "perftk-", getpid(), "-shrinks.elf");
  std::filesystem::copy_file("/proc/self/exe", copy,
                             std::filesystem::copy_options::overwrite_existing);
  EXPECT_EXIT(
      {
        base::InstallInterruptHandling();
        absl::StatusOr<std::unique_ptr<ElfFile>> file = ElfFile::Open(copy);
        if (!file.ok()) _exit(3);
        const Section* text = (*file)->FindSection(".text");
        if (text == nullptr || truncate(copy.c_str(), 0) != 0) _exit(4);
        unlink(copy.c_str());  // still mapped: reading it is what raises SIGBUS
        absl::StatusOr<absl::string_view> bytes = (*file)->SectionBytes(*text);
        if (!bytes.ok()) _exit(5);
        volatile char sum = 0;
        for (char c : *bytes) sum = static_cast<char>(sum + c);
        _exit(6);
      },
      ::testing::KilledBySignal(SIGBUS), "shrinks.elf: the input shrank while it was read");
  std::filesystem::remove(copy);
}

TEST(ElfFile, EmptyFile) {
  auto file = ElfFile::Open(WriteFile("empty", ""));
  ASSERT_FALSE(file.ok());
  EXPECT_THAT(file.status().message(), HasSubstr("not an ELF"));
}

TEST(ElfFile, BadClass) {
  std::string bytes = ReadFile(FixtureDir() + "/t_pie");
  bytes[4] = 7;
  auto file = ElfFile::Open(WriteFile("bad-class", bytes));
  ASSERT_FALSE(file.ok());
  EXPECT_THAT(file.status().message(), AllOf(HasSubstr("offset 0x4"), HasSubstr("class 7")));
}

TEST(ElfFile, TruncatedAtEveryInterestingLength) {
  const std::string whole = ReadFile(FixtureDir() + "/t_pie");
  ASSERT_GT(whole.size(), 4096u);
  for (size_t length : {size_t{5}, size_t{20}, size_t{63}, size_t{64}, size_t{200}, size_t{4096},
                        whole.size() / 2, whole.size() - 1}) {
    auto file = ElfFile::Open(WriteFile("truncated", whole.substr(0, length)));
    ASSERT_FALSE(file.ok()) << "length " << length;
    EXPECT_THAT(file.status().message(), HasSubstr("truncated")) << "length " << length;
  }
}

TEST(ElfFile, ReadsBothClassesAndByteOrdersLikeReadelf) {
  for (const char* name : {"t_pie", "tiny32", "s390x_pie", "a64_pie"}) {
    if (std::string reason = testing::MissingReason(name); !reason.empty()) continue;
    const std::string path = FixtureDir() + "/" + std::string(name);
    auto file = ElfFile::Open(path);
    ASSERT_TRUE(file.ok()) << file.status();
    const std::string header = RunShell("readelf -h '" + path + "'");
    EXPECT_EQ((*file)->is_64bit(), header.find("ELF64") != std::string::npos) << name;
    EXPECT_EQ((*file)->big_endian(), header.find("big endian") != std::string::npos) << name;
    const std::string sections = RunShell("readelf -SW '" + path + "' | grep -c '^  \\['");
    EXPECT_EQ((*file)->sections().size(), std::stoul(sections) - 1) << name;  // minus header line
    const std::string id = RunShell("readelf -n '" + path + "' | sed -n 's/.*Build ID: *//p'");
    if (!id.empty()) {
      ASSERT_TRUE((*file)->BuildId().has_value()) << name;
      EXPECT_EQ((*file)->BuildId()->ToHex(), id.substr(0, id.size() - 1)) << name;
    }
  }
}

// The typed table readers against readelf, on both classes and byte orders:
// the symbol tables' sizes and defined counts, each relocation's r_info
// (rebuilt from type and symbol in the file's own class) and the DT_NEEDED
// count.
TEST(ElfFile, TablesMatchReadelf) {
  for (const char* name : {"t_pie", "tiny32", "s390x_pie", "a64_pie"}) {
    if (std::string reason = testing::MissingReason(name); !reason.empty()) continue;
    const std::string path = FixtureDir() + "/" + std::string(name);
    auto file = ElfFile::Open(path);
    ASSERT_TRUE(file.ok()) << file.status();

    size_t listed = 0;
    size_t defined = 0;
    for (const Section& section : (*file)->sections()) {
      if (section.type != SHT_SYMTAB && section.type != SHT_DYNSYM) continue;
      auto symbols = (*file)->Symbols(section);
      ASSERT_TRUE(symbols.ok()) << symbols.status();
      listed += symbols->size();
      for (const Symbol& symbol : *symbols) defined += symbol.defined() ? 1 : 0;
    }
    const std::string symbols = "readelf -sW '" + path + "' | awk '$1 ~ /^[0-9]+:$/";
    EXPECT_EQ(listed, std::stoul(RunShell(symbols + "' | wc -l"))) << name;
    EXPECT_EQ(defined, std::stoul(RunShell(symbols + " && $7 != \"UND\"' | wc -l"))) << name;

    std::string infos;
    for (const Section& section : (*file)->sections()) {
      if (section.type != SHT_REL && section.type != SHT_RELA) continue;
      auto relocations = (*file)->Relocations(section);
      ASSERT_TRUE(relocations.ok()) << relocations.status();
      for (const Relocation& relocation : *relocations) {
        const uint64_t info = (*file)->is_64bit()
                                  ? ELF64_R_INFO(uint64_t{relocation.symbol}, relocation.type)
                                  : ELF32_R_INFO(relocation.symbol, relocation.type);
        infos += (*file)->is_64bit() ? absl::StrFormat("%016x\n", info)
                                     : absl::StrFormat("%08x\n", info);
      }
    }
    EXPECT_EQ(infos, RunShell("readelf -rW '" + path + "' | awk '$2 ~ /^[0-9a-f]+$/ {print $2}'"))
        << name;

    const Section* dynamic = (*file)->FindSectionByType(SHT_DYNAMIC);
    if (dynamic == nullptr) continue;  // static
    auto entries = (*file)->DynamicEntries(*dynamic);
    ASSERT_TRUE(entries.ok()) << entries.status();
    size_t needed = 0;
    for (const DynamicEntry& entry : *entries) needed += entry.tag == DT_NEEDED ? 1 : 0;
    EXPECT_EQ(needed, std::stoul(RunShell("readelf -d '" + path + "' | grep -c NEEDED || true")))
        << name;
  }
}

TEST(ElfFile, TableWithoutEntrySize) {
  auto file = ElfFile::Open(FixtureDir() + "/t_pie");
  ASSERT_TRUE(file.ok()) << file.status();
  Section text = *(*file)->FindSection(".text");
  auto symbols = (*file)->Symbols(text);
  ASSERT_FALSE(symbols.ok());
  EXPECT_THAT(symbols.status().message(), AllOf(HasSubstr("t_pie"), HasSubstr("sh_entsize is 0")));
}

}  // namespace
}  // namespace perftk::elf
