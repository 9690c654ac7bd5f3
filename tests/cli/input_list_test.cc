#include "cli/input_list.h"

#include <string>
#include <vector>

#include "../testing/temp_dir_test.h"
#include "gmock/gmock.h"

namespace perftk::cli {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class InputListTest : public testing::TempDirTest {
 protected:
  absl::Status Expand(const std::vector<std::string>& inputs) {
    paths_.clear();
    return ForEachInput(inputs, "list of inputs (@FILE)", [this](const std::string& path) {
      if (path == "stop") return absl::InvalidArgumentError("stopped");
      paths_.push_back(path);
      return absl::OkStatus();
    });
  }
  std::vector<std::string> paths_;
};

TEST_F(InputListTest, PathsAndListsInTheirOrder) {
  Put(Path("list"), "b.data\nc.data\n");
  ASSERT_TRUE(Expand({"a.data", "@" + Path("list"), "d.data"}).ok());
  EXPECT_THAT(paths_, ElementsAre("a.data", "b.data", "c.data", "d.data"));
}

TEST_F(InputListTest, CrLfBlankLinesAndCommentsAreNotPaths) {
  Put(Path("list"),
      "# recordings of the fleet\r\n\r\nhost1.data\r\n\n  # indented: a path\nlast.data");
  ASSERT_TRUE(Expand({"@" + Path("list")}).ok());
  EXPECT_THAT(paths_, ElementsAre("host1.data", "  # indented: a path", "last.data"));
}

TEST_F(InputListTest, AListIsNotReadForListsInside) {
  Put(Path("list"), "@other\n");
  ASSERT_TRUE(Expand({"@" + Path("list")}).ok());
  EXPECT_THAT(paths_, ElementsAre("@other"));
}

TEST_F(InputListTest, AMissingListIsAnErrorNamingItAndTheRole) {
  absl::Status s = Expand({"@" + Path("missing")});
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr(Path("missing")));
  EXPECT_THAT(s.message(), HasSubstr("list of inputs (@FILE)"));
}

TEST_F(InputListTest, TheFirstErrorStopsTheWalk) {
  Put(Path("list"), "one\nstop\nnever\n");
  absl::Status s = Expand({"@" + Path("list"), "after"});
  EXPECT_EQ(s.message(), "stopped");
  EXPECT_THAT(paths_, ElementsAre("one"));
}

}  // namespace
}  // namespace perftk::cli
