// UprobeResolver against objdump's ground truth ("<label> (File Offset: ..)")
// on programs compiled by tests/elf/fixtures/build.sh.
#include "uprobe/uprobe_resolver.h"

#include <fstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "fixture_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace perftk::uprobe {
namespace {

using elf::testing::FixtureDir;
using elf::testing::MissingReason;
using elf::testing::ObjdumpLabels;
using ::testing::AllOf;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

struct Case {
  std::string fixture;     // file to resolve in
  std::string query;       // what the user asks
  std::string truth_file;  // file objdump reads (the unstripped twin)
  std::string label;       // objdump label holding the expected offset
  std::string objdump = "objdump";
  bool in_library = false;
  std::string debug_dir;  // relative to the fixture dir; default /usr/lib/debug
};

Case C(std::string fixture, std::string query, std::string truth_file, std::string label,
       std::string objdump = "objdump", bool in_library = false, std::string debug_dir = "") {
  return Case{std::move(fixture), std::move(query), std::move(truth_file), std::move(label),
              std::move(objdump), in_library,       std::move(debug_dir)};
}

std::ostream& operator<<(std::ostream& os, const Case& c) {
  return os << c.fixture << ":" << c.query;
}

std::vector<Case> Cases() {
  std::vector<Case> cases;
  const std::vector<std::pair<std::string, std::string>> programs = {
      {"t_pie", "objdump"},
      {"t_nopie", "objdump"},
      {"t_static", "objdump"},
      {"t_cetplt", "objdump"},
      {"t_cetnow", "objdump"},
      {"t_now", "objdump"},
      {"t_addr", "objdump"},
      {"t_canon", "objdump"},
      {"t_rdyn", "objdump"},
      {"t_lld", "objdump"},
      {"t_lld_nopie", "objdump"},
      {"a64_pie", "aarch64-linux-gnu-objdump"},
      {"a64_nopie", "aarch64-linux-gnu-objdump"},
      {"s390x_pie", "s390x-linux-gnu-objdump"}};
  for (const auto& [program, objdump] : programs) {
    for (const char* function : {"global_fn", "weak_fn", "other_local", "main"}) {
      cases.push_back(C(program, function, program, function, objdump));
    }
    cases.push_back(C(program, "global_fn+0x4", program, "global_fn", objdump));
    if (program == "s390x_pie") continue;  // no PLT decoder for s390x
    // objdump labels an address with one of its aliases: static glibc's
    // malloc is printed as __libc_malloc, free as __free.
    const bool is_static = program == "t_static";
    cases.push_back(
        C(program, "malloc", program, is_static ? "__libc_malloc" : "malloc@plt", objdump));
    cases.push_back(C(program, "free", program, is_static ? "__free" : "free@plt", objdump));
  }
  for (const char* library : {"libv.so", "libv_based.so", "libv_strip.so"}) {
    cases.push_back(C(library, "vfn", "libv.so", "vfn@@VER_2"));
    cases.push_back(C(library, "vfn@@VER_2", "libv.so", "vfn@@VER_2"));
    cases.push_back(C(library, "vfn@VER_2", "libv.so", "vfn@@VER_2"));
    cases.push_back(C(library, "vfn@VER_1", "libv.so", "vfn@VER_1"));
    cases.push_back(C(library, "lib_plain", "libv.so", "lib_plain"));
  }
  for (const char* function : {"global_fn", "weak_fn", "other_local", "main"}) {
    cases.push_back(C("t_strip", function, "t_pie", function, "objdump", false, "debug"));
    cases.push_back(C("t_link", function, "t_link.full", function, "objdump", false, "no-debug"));
    cases.push_back(C("t_mini", function, "t_mini.full", function, "objdump", false, "no-debug"));
  }
  cases.push_back(C("usev", "vfn", "libv.so", "vfn@@VER_2", "objdump", true));
  cases.push_back(C("usev", "lib_plain", "libv.so", "lib_plain", "objdump", true));
  cases.push_back(C("usev", "vfn", "usev", "vfn@plt"));
  cases.push_back(C("tiny32", "tiny_fn", "tiny32", "tiny_fn"));
  return cases;
}

class ResolveMatchesObjdump : public ::testing::TestWithParam<Case> {};

TEST_P(ResolveMatchesObjdump, Offset) {
  const Case& c = GetParam();
  ASSERT_FALSE(FixtureDir().empty());
  if (std::string reason = MissingReason(c.fixture); !reason.empty()) {
    GTEST_SKIP() << reason;
  }
  const std::string dir = FixtureDir();
  const auto labels = ObjdumpLabels(c.objdump, dir + "/" + c.truth_file);
  auto truth = labels.find(c.label);
  ASSERT_NE(truth, labels.end()) << c.objdump << " -dF " << c.truth_file << " has no <" << c.label
                                 << ">";
  ASSERT_EQ(truth->second.size(), 1u);
  uint64_t expected = truth->second[0];
  if (auto plus = c.query.find('+'); plus != std::string::npos) {
    expected += std::stoull(c.query.substr(plus + 1), nullptr, 16);
  }

  ResolveOptions options;
  options.in_library = c.in_library;
  if (!c.debug_dir.empty()) options.debug_root = dir + "/" + c.debug_dir;
  auto resolver = UprobeResolver::Open(dir + "/" + c.fixture, options);
  ASSERT_TRUE(resolver.ok()) << resolver.status();
  auto sites = (*resolver)->Resolve(c.query);
  ASSERT_TRUE(sites.ok()) << sites.status();
  ASSERT_EQ(sites->size(), 1u);
  EXPECT_EQ((*sites)[0].offset, expected)
      << std::hex << "got 0x" << (*sites)[0].offset << ", objdump says 0x" << expected;
  if (c.in_library) {
    EXPECT_EQ((*sites)[0].path, dir + "/" + c.truth_file);
  }
  if (c.label.find("@plt") != std::string::npos) {
    EXPECT_THAT((*sites)[0].note, HasSubstr("only calls made from this file"));
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, ResolveMatchesObjdump, ::testing::ValuesIn(Cases()));

absl::StatusOr<std::vector<ProbeSite>> ResolveIn(const std::string& file, const std::string& query,
                                                 ResolveOptions options = {}) {
  auto resolver = UprobeResolver::Open(file, options);
  if (!resolver.ok()) return resolver.status();
  return (*resolver)->Resolve(query);
}

TEST(UprobeResolver, TwoStaticFunctionsWithOneNameAreAmbiguous) {
  const std::string file = FixtureDir() + "/t_pie";
  const auto truth = ObjdumpLabels("objdump", file).at("local_fn");
  ASSERT_EQ(truth.size(), 2u);
  auto sites = ResolveIn(file, "local_fn");
  ASSERT_FALSE(sites.ok());
  EXPECT_THAT(sites.status().message(), AllOf(HasSubstr("ambiguous"), HasSubstr("local"),
                                              HasSubstr("size 4"), HasSubstr("--all")));

  ResolveOptions all;
  all.all = true;
  sites = ResolveIn(file, "local_fn", all);
  ASSERT_TRUE(sites.ok()) << sites.status();
  std::vector<uint64_t> offsets;
  for (const ProbeSite& site : *sites) offsets.push_back(site.offset);
  EXPECT_THAT(offsets, ElementsAreArray(truth));
}

TEST(UprobeResolver, IfuncIsRefusedWithItsImplementations) {
  const std::string file = FixtureDir() + "/t_static";
  auto sites = ResolveIn(file, "strlen");
  ASSERT_FALSE(sites.ok());
  EXPECT_THAT(sites.status().message(),
              AllOf(HasSubstr("IFUNC"), HasSubstr("--ifunc-selector"), HasSubstr("__strlen_sse2")));

  ResolveOptions selector;
  selector.ifunc_selector = true;
  sites = ResolveIn(file, "strlen", selector);
  ASSERT_TRUE(sites.ok()) << sites.status();
  // objdump names the selector's address by its local alias strlen_ifunc.
  const auto labels = ObjdumpLabels("objdump", file);
  ASSERT_TRUE(labels.contains("strlen_ifunc"));
  EXPECT_EQ((*sites)[0].offset, labels.at("strlen_ifunc")[0]);
  EXPECT_EQ((*sites)[0].type, "ifunc");
}

TEST(UprobeResolver, UnknownNameSuggestsCloseNames) {
  auto sites = ResolveIn(FixtureDir() + "/t_pie", "globl_fn");
  ASSERT_FALSE(sites.ok());
  EXPECT_TRUE(absl::IsNotFound(sites.status()));
  EXPECT_THAT(sites.status().message(), HasSubstr("Did you mean: global_fn"));
}

TEST(UprobeResolver, OffsetPastTheFunctionEndIsRefused) {
  auto sites = ResolveIn(FixtureDir() + "/t_pie", "global_fn+0x400");
  ASSERT_FALSE(sites.ok());
  EXPECT_THAT(sites.status().message(), HasSubstr("past the end of global_fn"));
}

TEST(UprobeResolver, NoPltStubIsExplained) {
  auto sites = ResolveIn(FixtureDir() + "/t_noplt", "malloc");
  ASSERT_FALSE(sites.ok());
  EXPECT_THAT(sites.status().message(), AllOf(HasSubstr("no PLT stub"), HasSubstr("--in-library")));
}

TEST(UprobeResolver, WrongVersionListsTheVersions) {
  auto sites = ResolveIn(FixtureDir() + "/libv.so", "vfn@@VER_1");
  ASSERT_FALSE(sites.ok());
  EXPECT_THAT(sites.status().message(), AllOf(HasSubstr("vfn@VER_1"), HasSubstr("vfn@@VER_2")));
}

TEST(UprobeResolver, StrippedWithoutDebugFileSaysSo) {
  ResolveOptions options;
  options.debug_root = FixtureDir() + "/no-debug";
  auto sites = ResolveIn(FixtureDir() + "/t_strip", "global_fn", options);
  ASSERT_FALSE(sites.ok());
  EXPECT_THAT(sites.status().message(), HasSubstr("stripped"));
}

TEST(UprobeResolver, ListHasEveryObjdumpFunctionAtItsOffset) {
  const std::string file = FixtureDir() + "/t_cetplt";
  auto resolver = UprobeResolver::Open(file, {});
  ASSERT_TRUE(resolver.ok()) << resolver.status();
  auto listed = (*resolver)->List();
  ASSERT_TRUE(listed.ok()) << listed.status();
  const auto labels = ObjdumpLabels("objdump", file);
  size_t checked = 0;
  for (const ListedSite& site : *listed) {
    ASSERT_THAT(site.note, IsEmpty()) << site.Symbol();
    auto truth = labels.find(site.Symbol());
    ASSERT_NE(truth, labels.end()) << site.Symbol();
    EXPECT_THAT(truth->second, ::testing::Contains(site.offset)) << site.Symbol();
    ++checked;
  }
  EXPECT_GE(checked, 8u);
  for (const char* name : {"global_fn", "main", "malloc@plt", "free@plt"}) {
    EXPECT_TRUE(std::any_of(listed->begin(), listed->end(), [&](const ListedSite& s) {
      return s.Symbol() == name;
    })) << name;
  }
}

TEST(UprobeResolver, S390xImportsAreRejectedClearly) {
  if (std::string reason = MissingReason("s390x_pie"); !reason.empty()) {
    GTEST_SKIP() << reason;
  }
  auto sites = ResolveIn(FixtureDir() + "/s390x_pie", "malloc");
  ASSERT_FALSE(sites.ok());
  EXPECT_THAT(sites.status().message(), HasSubstr("x86_64 and aarch64"));
}

}  // namespace
}  // namespace perftk::uprobe
