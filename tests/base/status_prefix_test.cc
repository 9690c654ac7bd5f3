#include "base/status_prefix.h"

#include "absl/strings/cord.h"
#include "base/interrupt.h"
#include "gtest/gtest.h"

namespace perftk::base {
namespace {

TEST(PrefixedTest, PutsThePrefixBeforeTheMessageAndKeepsTheCode) {
  const absl::Status status = Prefixed("in.data: ", absl::DataLossError("offset 0x40: short"));
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(status.message(), "in.data: offset 0x40: short");
}

TEST(PrefixedTest, KeepsEveryPayload) {
  absl::Status status = ClosedPipeError("standard output: cannot write");
  status.SetPayload("test/other", absl::Cord("x"));
  const absl::Status prefixed = Prefixed("in.data: ", status);
  EXPECT_TRUE(IsClosedPipe(prefixed));
  EXPECT_EQ(prefixed.GetPayload("test/other"), absl::Cord("x"));
  EXPECT_FALSE(IsClosedPipe(Prefixed("in.data: ", absl::InternalError("disk full"))));
}

TEST(MarkedTest, MarksAStatusOfAKindItsCodeDoesNotSay) {
  const absl::Status marked = Marked(absl::InvalidArgumentError("bad"), "test/kind");
  EXPECT_TRUE(HasMark(marked, "test/kind"));
  EXPECT_FALSE(HasMark(marked, "test/other"));
  EXPECT_EQ(marked.message(), "bad");
  EXPECT_TRUE(HasMark(Prefixed("in.data: ", marked), "test/kind"));
  EXPECT_FALSE(HasMark(absl::InvalidArgumentError("bad"), "test/kind"));
}

TEST(PrefixedTest, AnOkStatusStaysOk) { EXPECT_TRUE(Prefixed("in.data: ", absl::OkStatus()).ok()); }

}  // namespace
}  // namespace perftk::base
