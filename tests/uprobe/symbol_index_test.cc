// SymbolIndex on the compiled fixtures: lookups by plain name in table
// order, the name index catching up with tables added after a lookup, and
// names that are views into the ElfFile (no copies).
#include "uprobe/symbol_index.h"

#include <memory>
#include <string>

#include "elf/elf_file.h"
#include "fixture_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace perftk::uprobe {
namespace {

using elf::testing::FixtureDir;

std::unique_ptr<elf::ElfFile> OpenFixture(const std::string& name) {
  auto file = elf::ElfFile::Open(FixtureDir() + "/" + name);
  EXPECT_TRUE(file.ok()) << file.status();
  return file.ok() ? *std::move(file) : nullptr;
}

TEST(SymbolIndex, TwoStaticFunctionsOfOneNameAreFoundInTableOrder) {
  auto file = OpenFixture("t_pie");
  ASSERT_NE(file, nullptr);
  SymbolIndex index;
  ASSERT_TRUE(index.AddTables(*file, /*from_binary=*/true).ok());
  const auto found = index.Find("local_fn");
  ASSERT_EQ(found.size(), 2u);
  EXPECT_LT(found[0] - index.symbols().data(), found[1] - index.symbols().data());
  EXPECT_NE(found[0]->value, found[1]->value);
  EXPECT_EQ(found[0]->bind, STB_LOCAL);
  EXPECT_TRUE(index.Find("no_such_function").empty());
}

TEST(SymbolIndex, LookupsSeeTablesAddedAfterTheFirstLookup) {
  auto stripped = OpenFixture("t_link");
  auto debug = OpenFixture("t_link.dbg");
  ASSERT_NE(stripped, nullptr);
  ASSERT_NE(debug, nullptr);
  SymbolIndex index;
  ASSERT_TRUE(index.AddTables(*stripped, /*from_binary=*/true).ok());
  ASSERT_FALSE(index.has_symtab());
  // global_fn is not exported, so only the debug file's .symtab has it.
  EXPECT_TRUE(index.Find("global_fn").empty());
  EXPECT_FALSE(index.FindImport("malloc").empty());
  ASSERT_TRUE(index.AddSymtab(*debug, "t_link.dbg:.symtab").ok());
  const auto found = index.Find("global_fn");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_FALSE(found[0]->from_binary);
  EXPECT_EQ(found[0]->table, "t_link.dbg:.symtab");
  EXPECT_EQ(index.Find("local_fn").size(), 2u);
}

TEST(SymbolIndex, NamesPointIntoTheFile) {
  auto file = OpenFixture("t_pie");
  ASSERT_NE(file, nullptr);
  SymbolIndex index;
  ASSERT_TRUE(index.AddTables(*file, /*from_binary=*/true).ok());
  const auto found = index.Find("global_fn");
  ASSERT_EQ(found.size(), 1u);
  const elf::Section* strtab = file->FindSection(".strtab");
  ASSERT_NE(strtab, nullptr);
  auto bytes = file->SectionBytes(*strtab);
  ASSERT_TRUE(bytes.ok());
  const char* name = found[0]->name.data();
  EXPECT_TRUE(name >= bytes->data() && name < bytes->data() + bytes->size());
  EXPECT_EQ(found[0]->DisplayName(), "global_fn");
}

TEST(SplitVersionedName, SplitsIntoViews) {
  absl::string_view name, version;
  bool default_version = false;
  SplitVersionedName("vfn@@VER_2", &name, &version, &default_version);
  EXPECT_EQ(name, "vfn");
  EXPECT_EQ(version, "VER_2");
  EXPECT_TRUE(default_version);
  SplitVersionedName("vfn@VER_1", &name, &version, &default_version);
  EXPECT_EQ(version, "VER_1");
  EXPECT_FALSE(default_version);
  SplitVersionedName("@odd", &name, &version, &default_version);
  EXPECT_EQ(name, "@odd");
  EXPECT_TRUE(version.empty());
}

}  // namespace
}  // namespace perftk::uprobe
