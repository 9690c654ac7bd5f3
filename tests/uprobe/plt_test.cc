#include "uprobe/plt.h"

#include <elf.h>

#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "fixture_util.h"
#include "gtest/gtest.h"
#include "uprobe/address_map.h"

namespace perftk::uprobe {
namespace {

using elf::testing::FixtureDir;
using elf::testing::MissingReason;
using elf::testing::ObjdumpLabels;

// "name@plt" -> file offset, for every stub FindPltStubs finds in `path`.
std::map<std::string, uint64_t> StubsOf(const std::string& path) {
  std::map<std::string, uint64_t> named;
  absl::StatusOr<std::unique_ptr<elf::ElfFile>> file = elf::ElfFile::Open(path);
  EXPECT_TRUE(file.ok()) << file.status();
  if (!file.ok()) return named;
  absl::StatusOr<PltStubs> stubs = FindPltStubs(**file);
  EXPECT_TRUE(stubs.ok()) << stubs.status();
  const elf::Section* dynsym = (*file)->FindSectionByType(SHT_DYNSYM);
  if (!stubs.ok() || dynsym == nullptr) return named;
  absl::StatusOr<std::vector<elf::Symbol>> symbols = (*file)->Symbols(*dynsym);
  EXPECT_TRUE(symbols.ok()) << symbols.status();
  if (!symbols.ok()) return named;
  for (const auto& [index, stub] : *stubs) {
    EXPECT_LT(index, symbols->size()) << path;
    if (index >= symbols->size()) continue;
    absl::StatusOr<absl::string_view> name =
        (*file)->StringViewAt(dynsym->link, (*symbols)[index].name_offset);
    EXPECT_TRUE(name.ok()) << name.status();
    absl::StatusOr<uint64_t> offset = CodeAddressToFileOffset(**file, stub.vaddr, stub.section);
    EXPECT_TRUE(offset.ok()) << path << ": " << offset.status();
    if (name.ok() && offset.ok()) named[std::string(*name) + "@plt"] = *offset;
  }
  return named;
}

// Every stub is one objdump names "name@plt" at that offset, and every
// "@plt" label objdump prints is a stub: lazy .plt, .plt.sec (IBT),
// .plt.got (-z now, address-taken functions), GNU ld and lld, x86_64 and
// aarch64.
TEST(FindPltStubs, FindsTheStubsObjdumpNames) {
  ASSERT_FALSE(FixtureDir().empty());
  const std::vector<std::pair<std::string, std::string>> programs = {
      {"t_pie", "objdump"},
      {"t_nopie", "objdump"},
      {"t_cetplt", "objdump"},
      {"t_cetnow", "objdump"},
      {"t_now", "objdump"},
      {"t_addr", "objdump"},
      {"t_canon", "objdump"},
      {"t_lld", "objdump"},
      {"t_lld_nopie", "objdump"},
      {"usev", "objdump"},
      {"a64_pie", "aarch64-linux-gnu-objdump"},
      {"a64_nopie", "aarch64-linux-gnu-objdump"}};
  int checked = 0;
  for (const auto& [program, objdump] : programs) {
    if (!MissingReason(program).empty()) continue;
    const std::string path = FixtureDir() + "/" + program;
    const std::map<std::string, uint64_t> stubs = StubsOf(path);
    EXPECT_TRUE(stubs.count("malloc@plt") || program == "usev") << program;
    std::set<std::string> labelled;
    for (const auto& [label, offsets] : ObjdumpLabels(objdump, path)) {
      if (label.size() < 4 || label.compare(label.size() - 4, 4, "@plt") != 0) continue;
      labelled.insert(label);
      auto stub = stubs.find(label);
      ASSERT_NE(stub, stubs.end()) << program << ": objdump names " << label;
      EXPECT_EQ(offsets, std::vector<uint64_t>{stub->second}) << program << ": " << label;
    }
    for (const auto& [name, offset] : stubs) {
      EXPECT_TRUE(labelled.count(name)) << program << ": " << name << " at 0x" << std::hex << offset
                                        << " is not a stub objdump names";
    }
    ++checked;
  }
  EXPECT_GE(checked, 7) << "most fixtures need only gcc";
}

TEST(FindPltStubs, AStaticProgramHasNone) {
  ASSERT_FALSE(FixtureDir().empty());
  absl::StatusOr<std::unique_ptr<elf::ElfFile>> file =
      elf::ElfFile::Open(FixtureDir() + "/t_static");
  ASSERT_TRUE(file.ok()) << file.status();
  absl::StatusOr<PltStubs> stubs = FindPltStubs(**file);
  // Static glibc keeps IRELATIVE slots in .plt (objdump prints
  // "*ABS*+0x...@plt"), which name no dynamic symbol: no stub.
  ASSERT_TRUE(stubs.ok()) << stubs.status();
  EXPECT_TRUE(stubs->empty());
}

}  // namespace
}  // namespace perftk::uprobe
