#include "uprobe/probe_text.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace perftk::uprobe {
namespace {

ProbeSite Site(std::string query, uint64_t offset) {
  ProbeSite site;
  site.query = std::move(query);
  site.symbol = site.query;
  site.path = "/usr/lib/libv.so";
  site.offset = offset;
  site.address = offset + 0x1000;
  site.size = 16;
  site.binding = "global";
  site.type = "func";
  site.section = ".text";
  site.table = ".dynsym";
  return site;
}

ProbeSite UsdtSite() {
  ProbeSite site = Site("usdt:py:function__entry", 0x2a0);
  site.symbol = "py:function__entry";
  site.type = "usdt";
  site.ref_ctr_offset = 0x4010;
  auto argument = [](std::string spec, std::string fetch, std::string problem) {
    UsdtArgument a;
    a.spec = std::move(spec);
    a.fetch = std::move(fetch);
    a.problem = std::move(problem);
    return a;
  };
  site.arguments = {argument("8@%rdi", "%di:u64", ""), argument("-4@weird", "", "no register"),
                    argument("4@%esi", "%si:u32", "")};
  return site;
}

TEST(HexLines, NamesEachSiteOnlyWhenAsked) {
  const std::vector<ProbeSite> one = {Site("malloc", 0x9a0)};
  EXPECT_EQ(HexLines(one, /*name_each=*/false), "0x9a0\n");
  EXPECT_EQ(HexLines(one, /*name_each=*/true), "malloc 0x9a0\n");
}

TEST(HexLines, UsdtSitesCarryTheirSemaphoreAndExpressibleArguments) {
  // The argument fetch-args cannot express is left out, the others keep
  // their numbers.
  EXPECT_EQ(HexLines({UsdtSite()}, false), "0x2a0 ref_ctr=0x4010 arg1=%di:u64 arg3=%si:u32\n");
}

TEST(UprobeEventLines, EventNamesAreTracefsSafeAndUnique) {
  const std::vector<ProbeSite> sites = {Site("vfn@@VER_2", 0x10), Site("vfn@@VER_2", 0x20),
                                        Site("9lives+0x4", 0x30), Site("..", 0x40)};
  EXPECT_EQ(UprobeEventLines(sites, EventStyle{}),
            "p:perftk/vfn_VER_2 /usr/lib/libv.so:0x10\n"
            "p:perftk/vfn_VER_2_2 /usr/lib/libv.so:0x20\n"
            "p:perftk/f_9lives_0x4 /usr/lib/libv.so:0x30\n"
            "p:perftk/f_ /usr/lib/libv.so:0x40\n");
}

TEST(UprobeEventLines, ReturnProbesAndGroups) {
  EXPECT_EQ(UprobeEventLines({Site("main", 0x1139)}, {.return_probe = true, .group = "app"}),
            "r:app/main__return /usr/lib/libv.so:0x1139\n");
}

TEST(UprobeEventLines, UsdtProbesTakeTheirSemaphoreInParentheses) {
  EXPECT_EQ(UprobeEventLines({UsdtSite()}, EventStyle{}),
            "p:perftk/usdt_py_function__entry /usr/lib/libv.so:0x2a0(0x4010) arg1=%di:u64 "
            "arg3=%si:u32\n");
}

TEST(SitesJson, EveryFieldAndTheEventLine) {
  ProbeSite site = Site("a\"b", 0x10);
  site.note = "an IFUNC";
  EXPECT_EQ(
      SitesJson({site}, EventStyle{}),
      "[\n  {\"query\": \"a\\\"b\", \"symbol\": \"a\\\"b\", \"path\": \"/usr/lib/libv.so\", "
      "\"offset\": \"0x10\", \"address\": \"0x1010\", \"size\": 16, \"binding\": \"global\", "
      "\"type\": \"func\", \"section\": \".text\", \"table\": \".dynsym\", "
      "\"uprobe_event\": \"p:perftk/a_b /usr/lib/libv.so:0x10\", \"note\": \"an IFUNC\"}\n]\n");
}

TEST(SitesJson, UsdtSitesListEveryArgumentWithItsFetchOrProblem) {
  const std::string json = SitesJson({UsdtSite()}, EventStyle{});
  EXPECT_THAT(json, ::testing::HasSubstr(
                        "\"ref_ctr_offset\": \"0x4010\", \"arguments\": [{\"spec\": \"8@%rdi\", "
                        "\"fetch\": \"%di:u64\"}, {\"spec\": \"-4@weird\", \"problem\": \"no "
                        "register\"}, {\"spec\": \"4@%esi\", \"fetch\": \"%si:u32\"}]"));
}

TEST(UsdtListing, TheNotesOwnNumbers) {
  UsdtProbe probe;
  probe.note = {.provider = "py",
                .name = "gc__start",
                .arguments = "-4@%edi",
                .location = 0x11a0,
                .base = 0x2000,
                .semaphore = 0x4010};
  probe.offset = 0x1a0;
  probe.semaphore_offset = 0x3010;
  UsdtProbe bare = probe;
  bare.note.arguments.clear();
  EXPECT_EQ(UsdtListing({probe, bare}),
            "0x000001a0  py:gc__start  location=0x11a0 base=0x2000 semaphore=0x4010 "
            "ref_ctr=0x3010  -4@%edi\n"
            "0x000001a0  py:gc__start  location=0x11a0 base=0x2000 semaphore=0x4010 "
            "ref_ctr=0x3010\n");
}

TEST(FunctionListing, PadsOffsetsToEightDigitsAndKeepsLongOnes) {
  ListedSite stub;
  stub.imported_name = "free";
  stub.offset = 0x1030;
  ListedSite far = stub;
  far.imported_name = "malloc";
  far.offset = 0x123456789a;
  EXPECT_EQ(FunctionListing({stub, far}), "0x00001030  free@plt\n0x123456789a  malloc@plt\n");
  EXPECT_EQ(FunctionListing({}), "");
}

}  // namespace
}  // namespace perftk::uprobe
