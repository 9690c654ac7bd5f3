// ToolFeed: the one place the machine model changes. A tool that keeps no
// model is left alone; one that does sees BeforeModelChange with the model
// as it was, then Process with the record taken, by its policy; a chain's
// first tool finishes into the second before the second finishes.
#include "pipeline/tool_feed.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "../testing/collecting_sink.h"
#include "base/bytes.h"
#include "base/warnings.h"
#include "machine/machine.h"
#include "perf/record_encoders.h"
#include "pipeline/chained_tool.h"

namespace perftk::pipeline {
namespace {

constexpr int32_t kPid = 42;
constexpr uint64_t kStart = 0x400000;

std::vector<std::byte> Mmap2(uint64_t start) {
  perf::Mmap2Fields fields;
  fields.pid = fields.tid = kPid;
  fields.start = start;
  fields.len = 0x1000;
  fields.prot = 5;
  fields.filename = "/usr/bin/prog";
  return *perf::EncodeMmap2(fields, PERF_RECORD_MISC_USER, {});
}

std::vector<std::byte> Exit(uint32_t pid = kPid) {
  std::vector<std::byte> body(24);
  const uint32_t ids[4] = {pid, pid, pid, pid};  // pid, ppid, tid, ptid; time 0
  std::memcpy(body.data(), ids, sizeof(ids));
  return *perf::MakeRecordBytes(PERF_RECORD_EXIT, 0, body);
}

std::vector<std::byte> Comm(uint32_t pid = kPid) {
  std::vector<std::byte> body(16);
  const uint32_t ids[2] = {pid, pid};
  std::memcpy(body.data(), ids, sizeof(ids));
  std::memcpy(body.data() + 8, "prog", 4);
  return *perf::MakeRecordBytes(PERF_RECORD_COMM, 0, body);
}

// Notes what the model says, at each step, about kPid and kStart.
class Watcher : public Tool {
 public:
  explicit Watcher(std::optional<ModelPolicy> policy, std::string name = "watcher")
      : policy_(policy), name_(std::move(name)) {}

  std::optional<ModelPolicy> model_policy() const override { return policy_; }
  absl::Status BeforeModelChange(const perf::Record& record, RecordSink& out) override {
    log.push_back(name_ + " before " + std::to_string(record.type()) + ": " + Look());
    // What a tool finishes before the change goes out now, ahead of it.
    if (!held) return absl::OkStatus();
    const perf::OwnedRecord record_held = std::move(*held);
    held.reset();
    return out.Emit(record_held.view());
  }
  absl::Status Process(const perf::Record& record, RecordSink& out) override {
    log.push_back(name_ + " process " + std::to_string(record.type()) + ": " + Look());
    if (hold_samples && record.type() == PERF_RECORD_SAMPLE) {
      held.emplace(record);
      return absl::OkStatus();
    }
    return out.Emit(record);
  }

  std::vector<std::string> log;
  bool hold_samples = false;
  std::optional<perf::OwnedRecord> held;

 private:
  std::string Look() const {
    if (!policy_) return "no model";
    const bool mapped = model().FindMap(0, kPid, PERF_RECORD_MISC_USER, kStart).has_value();
    const machine::Machine* host = model().Find(PERF_RECORD_MISC_USER, kPid);
    const bool thread = host != nullptr && host->FindThread(kPid).has_value();
    return std::string(mapped ? "mapped" : "unmapped") + (thread ? ", thread" : "");
  }

  std::optional<ModelPolicy> policy_;
  std::string name_;
};

TEST(ToolFeed, AToolWithoutPolicyKeepsNoModel) {
  Watcher tool(std::nullopt);
  ToolFeed feed(tool);
  perf::Header header;
  ASSERT_TRUE(feed.Begin(header).ok());
  testing::CollectingSink out;
  ASSERT_TRUE(feed.Process(perf::Record(Mmap2(kStart), 0), out).ok());
  EXPECT_EQ(tool.log, std::vector<std::string>{"watcher process 10: no model"});
  EXPECT_EQ(out.records.size(), 1u);
}

TEST(ToolFeed, TheModelChangesBetweenBeforeModelChangeAndProcess) {
  base::WarningList warnings;
  Watcher tool(ModelPolicy{.bad_records_to = &warnings});
  ToolFeed feed(tool);
  perf::Header header;
  ASSERT_TRUE(feed.Begin(header).ok());
  testing::CollectingSink out;
  ASSERT_TRUE(feed.Process(perf::Record(Comm(), 0), out).ok());
  ASSERT_TRUE(feed.Process(perf::Record(Mmap2(kStart), 0x40), out).ok());
  ASSERT_TRUE(feed.Process(perf::Record(Exit(), 0x80), out).ok());
  EXPECT_EQ(tool.log, (std::vector<std::string>{
                          "watcher before 3: unmapped", "watcher process 3: unmapped, thread",
                          "watcher before 10: unmapped, thread",
                          "watcher process 10: mapped, thread", "watcher before 4: mapped, thread",
                          "watcher process 4: mapped, thread",  // exited, still found
                      }));
  EXPECT_TRUE(warnings.lines().empty());
}

// The model forgets an exited thread once kExitedThreadsKept more have
// exited: so it does with EXITs applied, and never without.
TEST(ToolFeed, AnExitCanLeaveTheThread) {
  for (const bool apply_exits : {true, false}) {
    Watcher tool(ModelPolicy{.apply_exits = apply_exits});
    ToolFeed feed(tool);
    perf::Header header;
    ASSERT_TRUE(feed.Begin(header).ok());
    testing::CollectingSink out;
    const uint32_t threads = machine::Machine::kExitedThreadsKept + 1;
    for (uint32_t pid = kPid; pid < kPid + threads; ++pid) {
      ASSERT_TRUE(feed.Process(perf::Record(Comm(pid), 0), out).ok());
    }
    for (uint32_t pid = kPid; pid < kPid + threads; ++pid) {
      ASSERT_TRUE(feed.Process(perf::Record(Exit(pid), 0), out).ok());
    }
    EXPECT_EQ(tool.log.back(),
              apply_exits ? "watcher process 4: unmapped" : "watcher process 4: unmapped, thread");
  }
}

TEST(ToolFeed, ABadRecordEndsTheRunOrIsAWarning) {
  std::vector<std::byte> bad = Mmap2(kStart);
  bad.resize(16);  // the header and half the fields
  base::Store<uint16_t>(bad.data() + 6, 16);
  for (const bool warn : {false, true}) {
    base::WarningList warnings;
    Watcher tool(ModelPolicy{.bad_records_to = warn ? &warnings : nullptr});
    ToolFeed feed(tool);
    perf::Header header;
    ASSERT_TRUE(feed.Begin(header).ok());
    testing::CollectingSink out;
    absl::Status status = feed.Process(perf::Record(bad, 0x100), out);
    if (warn) {
      EXPECT_TRUE(status.ok()) << status;
      ASSERT_EQ(warnings.lines().size(), 1u);
      EXPECT_NE(warnings.lines()[0].find("0x100"), std::string::npos) << warnings.lines()[0];
      EXPECT_EQ(tool.log.back(), "watcher process 10: unmapped");  // passed on all the same
    } else {
      EXPECT_FALSE(status.ok());
      EXPECT_NE(status.message().find("0x100"), std::string::npos) << status;
      EXPECT_EQ(tool.log.back(), "watcher before 10: unmapped");  // never processed
    }
  }
}

TEST(ToolFeed, AChainFinishesInOrderAgainstOneModel) {
  Watcher first(ModelPolicy{}, "first"), second(ModelPolicy{}, "second");
  first.hold_samples = true;
  ChainedTool chain(first, second);
  ToolFeed feed(chain);
  perf::Header header;
  ASSERT_TRUE(feed.Begin(header).ok());
  testing::CollectingSink out;
  std::vector<std::byte> sample =
      *perf::MakeRecordBytes(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, {});
  ASSERT_TRUE(feed.Process(perf::Record(sample, 0), out).ok());
  ASSERT_TRUE(feed.Process(perf::Record(Mmap2(kStart), 0x40), out).ok());
  // The held sample reaches the second tool before the model changes, and
  // before the second finishes its own work.
  EXPECT_EQ(second.log, (std::vector<std::string>{
                            "second process 9: unmapped",
                            "second before 10: unmapped",
                            "second process 10: mapped, thread",
                        }));
  ASSERT_EQ(out.records.size(), 2u);
  EXPECT_EQ(out.records[0].view().type(), PERF_RECORD_SAMPLE);
}

TEST(ToolFeed, ChainedToolsMustKeepTheModelAlike) {
  Watcher first(ModelPolicy{}), second(ModelPolicy{.apply_exits = false});
  ChainedTool chain(first, second);
  ToolFeed feed(chain);
  perf::Header header;
  EXPECT_FALSE(feed.Begin(header).ok());
}

}  // namespace
}  // namespace perftk::pipeline
