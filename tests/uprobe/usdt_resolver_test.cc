// UsdtResolver on the fixtures of tests/elf/fixtures/build.sh: the sites of
// a probe, its semaphore and arguments, and the errors a user meets.
#include "uprobe/usdt_resolver.h"

#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "fixture_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace perftk::uprobe {
namespace {

using elf::testing::FixtureDir;
using elf::testing::RunShell;
using ::testing::AllOf;
using ::testing::HasSubstr;

// The address `nm` gives symbol `name` in `path`.
uint64_t NmAddress(const std::string& path, const std::string& name) {
  uint64_t address = 0;
  const std::string line = RunShell("nm '" + path + "' | awk '$3 == \"" + name + "\" {print $1}'");
  EXPECT_TRUE(absl::SimpleHexAtoi(line.substr(0, line.find('\n')), &address)) << name;
  return address;
}

std::unique_ptr<UsdtResolver> OpenFixture(const std::string& name) {
  absl::StatusOr<std::unique_ptr<UsdtResolver>> resolver =
      UsdtResolver::Open(FixtureDir() + "/" + name);
  EXPECT_TRUE(resolver.ok()) << resolver.status();
  return resolver.ok() ? std::move(*resolver) : nullptr;
}

TEST(UsdtResolverTest, AGuardedProbeHasItsSemaphoreAndArguments) {
  ASSERT_FALSE(FixtureDir().empty());
  std::unique_ptr<UsdtResolver> resolver = OpenFixture("u_x64");
  ASSERT_NE(resolver, nullptr);
  absl::StatusOr<std::vector<ProbeSite>> sites = resolver->Resolve("perftk:guarded", false);
  ASSERT_TRUE(sites.ok()) << sites.status();
  ASSERT_EQ(sites->size(), 1u);
  const ProbeSite& site = (*sites)[0];
  EXPECT_EQ(site.type, "usdt");
  EXPECT_EQ(site.symbol, "perftk:guarded");
  EXPECT_EQ(site.query, "usdt:perftk:guarded");
  EXPECT_NE(site.ref_ctr_offset, 0u);
  ASSERT_EQ(site.arguments.size(), 3u);
  EXPECT_EQ(site.arguments[0].fetch, "%di:s32");
  EXPECT_EQ(site.arguments[2].fetch, "%dx:s64");
  EXPECT_TRUE(site.note.empty());
  // Without the provider, as the name is unique.
  absl::StatusOr<std::vector<ProbeSite>> by_name = resolver->Resolve("guarded", false);
  ASSERT_TRUE(by_name.ok()) << by_name.status();
  EXPECT_EQ((*by_name)[0].offset, site.offset);
}

TEST(UsdtResolverTest, RipRelativeGlobalsReadTheSymbolThroughTheProbedMapping) {
  ASSERT_FALSE(FixtureDir().empty());
  for (const char* fixture : {"u_x64", "u_x64_nopie"}) {
    SCOPED_TRACE(fixture);
    std::unique_ptr<UsdtResolver> resolver = OpenFixture(fixture);
    ASSERT_NE(resolver, nullptr);
    absl::StatusOr<std::vector<ProbeSite>> sites = resolver->Resolve("perftk:memory", false);
    ASSERT_TRUE(sites.ok()) << sites.status();
    const ProbeSite& site = (*sites)[0];
    // mapped start - probe offset + X must be the symbol's address.
    const uint64_t x =
        NmAddress(FixtureDir() + "/" + fixture, "g_s32") - site.address + site.offset;
    EXPECT_EQ(site.arguments[0].fetch, absl::StrCat("@+0x", absl::Hex(x), ":s32"));
    // The indexed array element is named, not dropped.
    EXPECT_EQ(site.arguments[2].fetch, "");
    EXPECT_THAT(site.note, AllOf(HasSubstr("perftk:memory"), HasSubstr("arg3"),
                                 HasSubstr(site.arguments[2].spec)));
  }
}

TEST(UsdtResolverTest, ArgumentsAskedForAreReadAsStrings) {
  ASSERT_FALSE(FixtureDir().empty());
  std::unique_ptr<UsdtResolver> resolver = OpenFixture("u_x64");
  ASSERT_NE(resolver, nullptr);
  absl::StatusOr<std::vector<ProbeSite>> sites = resolver->Resolve("perftk:guarded", false, {2});
  ASSERT_TRUE(sites.ok()) << sites.status();
  EXPECT_EQ((*sites)[0].arguments[1].fetch, "+0(%si):string");
  EXPECT_EQ((*sites)[0].arguments[0].fetch, "%di:s32");
  absl::StatusOr<std::vector<ProbeSite>> not_a_pointer =
      resolver->Resolve("perftk:guarded", false, {1});
  ASSERT_FALSE(not_a_pointer.ok());
  EXPECT_THAT(not_a_pointer.status().message(),
              AllOf(HasSubstr("perftk:guarded, argument 1"), HasSubstr("-4@%edi")));
  absl::StatusOr<std::vector<ProbeSite>> out_of_range =
      resolver->Resolve("perftk:guarded", false, {4});
  ASSERT_FALSE(out_of_range.ok());
  EXPECT_THAT(out_of_range.status().message(), HasSubstr("has 3 arguments"));
}

TEST(UsdtResolverTest, SeveralSitesNeedAll) {
  ASSERT_FALSE(FixtureDir().empty());
  std::unique_ptr<UsdtResolver> resolver = OpenFixture("u_a64");
  ASSERT_NE(resolver, nullptr);
  absl::StatusOr<std::vector<ProbeSite>> refused = resolver->Resolve("perftk:inlined", false);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().message(), AllOf(HasSubstr("2 sites"), HasSubstr("--all")));
  absl::StatusOr<std::vector<ProbeSite>> all = resolver->Resolve("perftk:inlined", true);
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_EQ(all->size(), 2u);
  EXPECT_NE((*all)[0].offset, (*all)[1].offset);
}

TEST(UsdtResolverTest, AnUnknownProbeListsNearNames) {
  ASSERT_FALSE(FixtureDir().empty());
  std::unique_ptr<UsdtResolver> resolver = OpenFixture("u_s390x");
  ASSERT_NE(resolver, nullptr);
  absl::StatusOr<std::vector<ProbeSite>> sites = resolver->Resolve("perftk:guardd", false);
  ASSERT_FALSE(sites.ok());
  EXPECT_THAT(sites.status().message(),
              AllOf(HasSubstr("no USDT probe 'perftk:guardd'"), HasSubstr("usdt:perftk:guarded")));
}

TEST(UsdtResolverTest, AFileWithoutNotesIsAnError) {
  ASSERT_FALSE(FixtureDir().empty());
  absl::StatusOr<std::unique_ptr<UsdtResolver>> resolver =
      UsdtResolver::Open(FixtureDir() + "/t_pie");
  ASSERT_FALSE(resolver.ok());
  EXPECT_THAT(resolver.status().message(), AllOf(HasSubstr("t_pie"), HasSubstr("no USDT probes")));
}

}  // namespace
}  // namespace perftk::uprobe
