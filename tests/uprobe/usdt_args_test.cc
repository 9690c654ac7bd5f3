// USDT argument specs to uprobe_events fetch-args: every form the x86_64,
// aarch64 and s390x compilers emitted for tests/elf/fixtures/usdt.c (see
// the readelf -n output of u_x64*, u_a64*, u_s390x), and the forms
// fetch-args cannot express, which must be named, not dropped.
#include "uprobe/usdt_args.h"

#include <elf.h>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace perftk::uprobe {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

absl::StatusOr<uint64_t> FakeSymbols(absl::string_view symbol) {
  if (symbol == "g_s32") return 0x4024;
  if (symbol == "g_array") return 0x4080;
  return absl::NotFoundError("no such symbol");
}

struct Case {
  uint16_t machine;
  const char* spec;
  const char* fetch;  // empty: must be refused, with a reason
};

std::ostream& operator<<(std::ostream& os, const Case& c) {
  return os << c.machine << " " << c.spec;
}

class UsdtArgumentTest : public ::testing::TestWithParam<Case> {};

TEST_P(UsdtArgumentTest, TranslatesOrNamesWhyNot) {
  const UsdtArgument argument =
      TranslateUsdtArgument(GetParam().spec, GetParam().machine, &FakeSymbols);
  EXPECT_EQ(argument.spec, GetParam().spec);
  EXPECT_EQ(argument.fetch, GetParam().fetch);
  if (std::string(GetParam().fetch).empty()) {
    EXPECT_FALSE(argument.problem.empty());
  } else {
    EXPECT_THAT(argument.problem, IsEmpty());
  }
}

INSTANTIATE_TEST_SUITE_P(
    X86, UsdtArgumentTest,
    ::testing::Values(
        Case{EM_X86_64, "-1@%dil", "%di:s8"}, Case{EM_X86_64, "1@%sil", "%si:u8"},
        Case{EM_X86_64, "-2@%dx", "%dx:s16"}, Case{EM_X86_64, "2@%cx", "%cx:u16"},
        Case{EM_X86_64, "-4@%r8d", "%r8:s32"}, Case{EM_X86_64, "4@%r9d", "%r9:u32"},
        Case{EM_X86_64, "8@%rdx", "%dx:u64"}, Case{EM_X86_64, "-4@%eax", "%ax:s32"},
        Case{EM_X86_64, "1@%r15b", "%r15:u8"}, Case{EM_X86_64, "2@%r10w", "%r10:u16"},
        Case{EM_X86_64, "8@%rbp", "%bp:u64"}, Case{EM_X86_64, "8@%r12", "%r12:u64"},
        Case{EM_X86_64, "-8@8(%rsp)", "+8(%sp):s64"}, Case{EM_X86_64, "8@16(%rsp)", "+16(%sp):u64"},
        Case{EM_X86_64, "-1@-4(%rbp)", "-4(%bp):s8"}, Case{EM_X86_64, "-4@(%rax)", "+0(%ax):s32"},
        Case{EM_X86_64, "-4@12(%rax)", "+12(%ax):s32"},
        Case{EM_X86_64, "4@0x10(%rbx)", "+16(%bx):u32"},
        Case{EM_X86_64, "-4@g_s32(%rip)", "@+0x4024:s32"},
        Case{EM_X86_64, "-4@g_array+12(%rip)", "@+0x408c:s32"}, Case{EM_X86_64, "-4@$5", "\\5:s32"},
        Case{EM_X86_64, "-4@$-7", "\\-7:s32"},
        Case{EM_X86_64, "-8@$1099511627776", "\\1099511627776:s64"},
        Case{EM_X86_64, "1@%ah", "%ax:b8@8/64"},
        // Not expressible: index registers, bare %rip displacements, unknown
        // symbols, vector registers, odd sizes, a missing size, a signed high
        // byte.
        Case{EM_X86_64, "-4@(%rax,%rdi,4)", ""}, Case{EM_X86_64, "-4@g_array(,%rdi,4)", ""},
        Case{EM_X86_64, "8@-16(%rbp,%rax,8)", ""}, Case{EM_X86_64, "4@16(%rip)", ""},
        Case{EM_X86_64, "4@missing(%rip)", ""}, Case{EM_X86_64, "8@%xmm0", ""},
        Case{EM_X86_64, "16@%rax", ""}, Case{EM_X86_64, "%rax", ""}, Case{EM_X86_64, "-1@%ah", ""},
        Case{EM_X86_64, "-9223372036854775808@%rax", ""},
        Case{EM_X86_64, "99999999999999999999@%rax", ""},
        Case{EM_X86_64, "-8@$99999999999999999999", ""},
        // i386 uses the same registers; the kernel names them alike.
        Case{EM_386, "-4@%eax", "%ax:s32"}, Case{EM_386, "-4@8(%ebp)", "+8(%bp):s32"}));

INSTANTIATE_TEST_SUITE_P(
    Aarch64, UsdtArgumentTest,
    ::testing::Values(Case{EM_AARCH64, "-1@x0", "%x0:s8"}, Case{EM_AARCH64, "8@x7", "%x7:u64"},
                      Case{EM_AARCH64, "-4@w3", "%x3:s32"}, Case{EM_AARCH64, "8@sp", "%sp:u64"},
                      Case{EM_AARCH64, "-4@[x2]", "+0(%x2):s32"},
                      Case{EM_AARCH64, "8@[x2, 8]", "+8(%x2):u64"},
                      Case{EM_AARCH64, "-8@[sp, 8]", "+8(%sp):s64"},
                      Case{EM_AARCH64, "8@[sp]", "+0(%sp):u64"},
                      Case{EM_AARCH64, "-1@[sp, 31]", "+31(%sp):s8"},
                      Case{EM_AARCH64, "-4@[x29, -12]", "-12(%x29):s32"},
                      Case{EM_AARCH64, "-4@[x1, #12]", "+12(%x1):s32"},
                      Case{EM_AARCH64, "-4@5", "\\5:s32"}, Case{EM_AARCH64, "-4@-7", "\\-7:s32"},
                      Case{EM_AARCH64, "-8@1099511627776", "\\1099511627776:s64"},
                      Case{EM_AARCH64, "8@[x0, x1]", ""}, Case{EM_AARCH64, "8@v0", ""},
                      Case{EM_AARCH64, "8@x31", ""}));

INSTANTIATE_TEST_SUITE_P(S390, UsdtArgumentTest,
                         ::testing::Values(Case{EM_S390, "-1@%r2", "%r2:s8"},
                                           Case{EM_S390, "8@176(%r15)", "+176(%r15):u64"},
                                           Case{EM_S390, "-4@0(%r3)", "+0(%r3):s32"},
                                           Case{EM_S390, "-4@5", "\\5:s32"},
                                           Case{EM_S390, "-4@0(%r2,%r4)", ""}));

TEST(UsdtArgumentsTest, SplitsAtSpacesOutsideBrackets) {
  EXPECT_THAT(SplitUsdtArguments("-4@[sp, 28] 8@[x1] -8@x2"),
              ElementsAre("-4@[sp, 28]", "8@[x1]", "-8@x2"));
  EXPECT_THAT(SplitUsdtArguments("  -4@%edi   8@-16(%rbp) "),
              ElementsAre("-4@%edi", "8@-16(%rbp)"));
  EXPECT_THAT(SplitUsdtArguments(""), IsEmpty());
}

TEST(UsdtArgumentsTest, KeepsEveryArgumentInOrderIncludingRefusedOnes) {
  const std::vector<UsdtArgument> arguments =
      TranslateUsdtArguments("-4@%edi -4@(%rax,%rdi,4) 8@%rsi", EM_X86_64, &FakeSymbols);
  ASSERT_EQ(arguments.size(), 3u);
  EXPECT_EQ(arguments[0].fetch, "%di:s32");
  EXPECT_EQ(arguments[1].fetch, "");
  EXPECT_THAT(arguments[1].problem, HasSubstr("index"));
  EXPECT_EQ(arguments[2].fetch, "%si:u64");
}

TEST(UsdtArgumentsTest, AnUntranslatedMachineIsNamed) {
  const UsdtArgument argument = TranslateUsdtArgument("-4@a0", EM_RISCV, &FakeSymbols);
  EXPECT_EQ(argument.fetch, "");
  EXPECT_THAT(argument.problem, HasSubstr("machine 243"));
}

TEST(UsdtArgumentsTest, APointerIsReadAsTheStringItPointsTo) {
  struct StringCase {
    uint16_t machine;
    const char* spec;
    int pointer_size;
    const char* fetch;
  };
  for (const StringCase& c : {StringCase{EM_X86_64, "8@%rsi", 8, "+0(%si):string"},
                              StringCase{EM_AARCH64, "8@[sp, 16]", 8, "+0(+16(%sp)):string"},
                              StringCase{EM_X86_64, "8@g_s32(%rip)", 8, "+0(@+0x4024):string"},
                              StringCase{EM_386, "4@%eax", 4, "+0(%ax):string"}}) {
    SCOPED_TRACE(c.spec);
    UsdtArgument argument = TranslateUsdtArgument(c.spec, c.machine, &FakeSymbols);
    ASSERT_TRUE(ReadAsString(&argument, c.pointer_size).ok());
    EXPECT_EQ(argument.fetch, c.fetch);
  }
}

TEST(UsdtArgumentsTest, OnlyAPointerCanBeAString) {
  for (const char* spec : {"-4@%edi", "8@$5", "8@(%rax,%rdi,8)"}) {
    SCOPED_TRACE(spec);
    UsdtArgument argument = TranslateUsdtArgument(spec, EM_X86_64, &FakeSymbols);
    const std::string before = argument.fetch;
    const absl::Status status = ReadAsString(&argument, 8);
    EXPECT_FALSE(status.ok());
    EXPECT_THAT(status.message(), HasSubstr(spec));
    EXPECT_EQ(argument.fetch, before);
  }
}

}  // namespace
}  // namespace perftk::uprobe
