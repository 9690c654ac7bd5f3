#include "doc/bash_completion.h"

#include <stdlib.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "toy_app.h"

namespace perftk::doc {
namespace {

// Sources the completion script in bash and returns what _toy offers for the
// command line `words` (the last word is the one being completed), sorted,
// one per line. Runs in an empty directory so file names are predictable.
class BashCompletionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char dir_template[] = "/tmp/perftk-completion.XXXXXX";
    ASSERT_NE(mkdtemp(dir_template), nullptr);
    dir_ = dir_template;
    std::ofstream(dir_ + "/toy.bash") << BashCompletion(toy_.app);
    std::ofstream(dir_ + "/a.bin") << "";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Complete(const std::string& words) {
    const std::string command =
        absl::StrCat("cd ", dir_, " && bash -c 'source ./toy.bash; COMP_WORDS=(", words,
                     "); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _toy; printf \"%s\\n\" "
                     "\"${COMPREPLY[@]}\" | sort'");
    FILE* pipe = popen(command.c_str(), "r");
    std::string out;
    char buffer[256];
    while (pipe != nullptr && std::fgets(buffer, sizeof buffer, pipe) != nullptr) out += buffer;
    if (pipe != nullptr) {
      EXPECT_EQ(pclose(pipe), 0) << command;
    }
    return out;
  }

  ToyApp toy_;
  std::string dir_;
};

TEST_F(BashCompletionTest, SubcommandsFirst) {
  EXPECT_EQ(Complete("toy \"\""), "help\nshrink\n");
  EXPECT_EQ(Complete("toy sh"), "shrink\n");
  EXPECT_EQ(Complete("toy --"), "--help\n");
}

TEST_F(BashCompletionTest, OptionsOfTheSubcommand) {
  EXPECT_EQ(Complete("toy shrink --"), "--help\n--input\n--level\n--quiet\n");
  EXPECT_EQ(Complete("toy shrink -q -"), "--help\n--input\n--level\n--quiet\n-h\n-i\n-q\n");
}

TEST_F(BashCompletionTest, ChoicesOrFilesForValues) {
  EXPECT_EQ(Complete("toy shrink --level \"\""), "best\nfast\n");
  EXPECT_EQ(Complete("toy shrink --level = f"), "fast\n");  // bash splits --level=f
  EXPECT_EQ(Complete("toy shrink -i \"\""), "a.bin\ntoy.bash\n");
  EXPECT_EQ(Complete("toy shrink -q \"\""), "a.bin\ntoy.bash\n");  // the positional
}

TEST_F(BashCompletionTest, HelpTakesASubcommandName) {
  EXPECT_EQ(Complete("toy help \"\""), "help\nshrink\n");
  EXPECT_EQ(Complete("toy help shrink \"\""), "a.bin\ntoy.bash\n");
}

}  // namespace
}  // namespace perftk::doc
