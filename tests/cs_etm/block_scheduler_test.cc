// BlockScheduler alone (issue 31): which blocks it refuses, the order it
// writes blocks in whatever thread ran them, flows that carry from block to
// block kept in their source's order, and a model change waiting for every
// block in flight, and trace that lasts (a view of the mapped input) read
// in place and held, not copied. The blocks are those of simpleperf's real recording
// (tests/data/simpleperf-etm/perf_etm.data), submitted many times over.
#include "cs_etm/block_scheduler.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "etm_recording.h"
#include "gtest/gtest.h"
#include "perf/record.h"
#include "pipeline/tool.h"

namespace perftk::cs_etm {
namespace {

class NullSink : public pipeline::RecordSink {
 public:
  absl::Status Emit(const perf::Record& record) override {
    (void)record;
    return absl::OkStatus();
  }
};

// What a scheduler wrote: the blocks by file offset, in the order written,
// and their text.
struct Written {
  std::vector<uint64_t> offsets;
  std::string text;
};

// The file offset of round `round`'s copy of a block at `offset`.
uint64_t CopyOffset(int round, uint64_t offset) {
  return (uint64_t{1} << 32) * static_cast<uint64_t>(round) + offset;
}

class BlockSchedulerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { trace_ = ReadEtmRecording("perf_etm.data").release(); }
  static void TearDownTestSuite() {
    delete trace_;
    trace_ = nullptr;
  }

  // Decodes the recording's blocks `rounds` times over with `jobs`
  // threads, each copy of a block given its own file offset; `data_lasts`
  // as Submit takes it (the recording's bytes outlive the scheduler).
  Written Decode(const std::string& itrace, int jobs, int rounds, bool data_lasts = false) {
    Written written;
    LaneReadings inputs(itrace, jobs, trace_->header);
    if (!inputs.encoder) return written;
    BlockScheduler scheduler = Scheduler(inputs, [&written](BlockJob& job, pipeline::RecordSink&) {
      written.offsets.push_back(job.block.file_offset);
      written.text += Contents(job.samples);
      return job.status;
    });
    NullSink out;
    for (int round = 0; round < rounds; ++round) {
      for (size_t i = 0; i < trace_->blocks.size(); ++i) {
        TraceBlock block = trace_->blocks[i];
        block.file_offset = CopyOffset(round, block.file_offset);
        EXPECT_TRUE(scheduler.Submit(block, data_lasts, trace_->setups[i], out).ok());
      }
    }
    EXPECT_TRUE(scheduler.WriteAll(out).ok());
    EXPECT_TRUE(scheduler.idle());
    return written;
  }

  // A scheduler of the recording's model over `inputs` (which has an
  // encoder), writing through `write`.
  static BlockScheduler Scheduler(LaneReadings& inputs, BlockScheduler::BlockWriter write) {
    return BlockScheduler(inputs.options, trace_->model, inputs.images, *inputs.encoder,
                          inputs.build_ids, std::move(write));
  }

  static std::vector<uint64_t> SubmitOrder(int rounds) {
    std::vector<uint64_t> offsets;
    for (int round = 0; round < rounds; ++round) {
      for (const TraceBlock& block : trace_->blocks) {
        offsets.push_back(CopyOffset(round, block.file_offset));
      }
    }
    return offsets;
  }

  static EtmRecording* trace_;
};

EtmRecording* BlockSchedulerTest::trace_ = nullptr;

TEST_F(BlockSchedulerTest, TheRecordingHasBlocks) {
  ASSERT_GE(trace_->blocks.size(), 2u);
  EXPECT_FALSE(trace_->blocks.front().data.empty());
}

// il64: every block starts from empty flows and runs on whichever thread
// takes it; the blocks are still written in the order they were given.
TEST_F(BlockSchedulerTest, WritesBlocksInTheOrderGivenWhicheverThreadRanThem) {
  const int rounds = 40;
  const Written one = Decode("il64", 1, rounds);
  ASSERT_FALSE(one.text.empty());
  EXPECT_EQ(one.offsets, SubmitOrder(rounds));
  for (const int jobs : {2, 4}) {
    const Written many = Decode("il64", jobs, rounds);
    EXPECT_EQ(many.offsets, SubmitOrder(rounds)) << "jobs " << jobs;
    EXPECT_TRUE(many.text == one.text) << "jobs " << jobs;
    const Written in_place = Decode("il64", jobs, rounds, /*data_lasts=*/true);
    EXPECT_EQ(in_place.offsets, SubmitOrder(rounds)) << "jobs " << jobs;
    EXPECT_TRUE(in_place.text == one.text) << "jobs " << jobs;
  }
}

// Trace that lasts is decoded where it is, and the scheduler says, after
// every call, where the oldest block still in flight begins: the input
// keeps its pages from there on. Trace that does not last is copied, and
// holds nothing of the input.
TEST_F(BlockSchedulerTest, TraceThatLastsIsHeldInPlaceNotCopied) {
  for (const bool data_lasts : {true, false}) {
    LaneReadings inputs("il64", 2, trace_->header);
    ASSERT_TRUE(inputs.encoder);
    std::vector<uint64_t> written;
    size_t copies = 0;
    size_t in_place = 0;
    BlockScheduler scheduler = Scheduler(inputs, [&](BlockJob& job, pipeline::RecordSink&) {
      written.push_back(job.block.file_offset);
      copies += !job.data.empty() && job.block.data.data() == job.data.data();
      const std::vector<TraceBlock>& blocks = trace_->blocks;
      in_place += std::any_of(blocks.begin(), blocks.end(), [&job](const TraceBlock& block) {
        return block.data.data() == job.block.data.data();
      });
      return job.status;
    });
    NullSink out;
    std::vector<uint64_t> submitted;
    for (int round = 0; round < 10; ++round) {
      for (size_t i = 0; i < trace_->blocks.size(); ++i) {
        TraceBlock block = trace_->blocks[i];
        block.file_offset = CopyOffset(round, block.file_offset);
        ASSERT_TRUE(scheduler.Submit(block, data_lasts, trace_->setups[i], out).ok());
        submitted.push_back(block.file_offset);
        const bool all_written = written.size() == submitted.size();
        const uint64_t oldest = data_lasts && !all_written ? submitted[written.size()] : UINT64_MAX;
        EXPECT_EQ(scheduler.OldestViewHeld(), oldest) << "after block " << submitted.size();
      }
    }
    ASSERT_TRUE(scheduler.WriteAll(out).ok());
    EXPECT_EQ(scheduler.OldestViewHeld(), UINT64_MAX);
    EXPECT_EQ(written, submitted);
    EXPECT_EQ(in_place, data_lasts ? submitted.size() : 0) << "data_lasts " << data_lasts;
    EXPECT_EQ(copies, data_lasts ? 0 : submitted.size()) << "data_lasts " << data_lasts;
  }
}

// i7 without l: the count toward the next sample carries from block to
// block of a trace source, so those blocks must run one after another in
// the order given, whatever the threads. Then the samples are every 7th
// of the instructions that i1 samples one by one: a block that started
// from a count of its own (or from another's, out of order) would lose up
// to 6 instructions at its start.
size_t Lines(const std::string& text) {
  return static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
}

TEST_F(BlockSchedulerTest, FlowsThatCarryKeepTheirSourcesOrder) {
  const int rounds = 40;
  const size_t instructions = Lines(Decode("i1", 1, rounds).text);
  ASSERT_GT(instructions, 1000u);
  const Written one = Decode("i7", 1, rounds);
  EXPECT_EQ(Lines(one.text), instructions / 7);
  for (const int jobs : {2, 4}) {
    const Written many = Decode("i7", jobs, rounds);
    EXPECT_EQ(many.offsets, SubmitOrder(rounds)) << "jobs " << jobs;
    EXPECT_EQ(Lines(many.text), instructions / 7) << "jobs " << jobs;
    EXPECT_TRUE(many.text == one.text) << "jobs " << jobs;
  }
}

TEST_F(BlockSchedulerTest, RawTraceThatNamesNoCpuNeedsOneSource) {
  ASSERT_GE(trace_->setups.front()->info.sources.size(), 2u);
  LaneReadings inputs("il64", 1, trace_->header);
  ASSERT_TRUE(inputs.encoder);
  BlockScheduler scheduler =
      Scheduler(inputs, [](BlockJob& job, pipeline::RecordSink&) { return job.status; });
  TraceBlock block = trace_->blocks.front();
  block.formatted = false;
  block.cpu = kNoCpu;
  block.file_offset = 0x1234;
  NullSink out;
  const absl::Status status = scheduler.Submit(block, false, trace_->setups.front(), out);
  EXPECT_TRUE(absl::IsInvalidArgument(status)) << status;
  EXPECT_TRUE(absl::StrContains(status.message(), "0x1234")) << status;
  EXPECT_TRUE(scheduler.idle());
}

TEST_F(BlockSchedulerTest, AModelChangeWaitsForEveryBlockInFlight) {
  LaneReadings inputs("il64", 2, trace_->header);
  ASSERT_TRUE(inputs.encoder);
  size_t written = 0;
  BlockScheduler scheduler = Scheduler(inputs, [&written](BlockJob& job, pipeline::RecordSink&) {
    ++written;
    return job.status;
  });
  NullSink out;
  size_t submitted = 0;
  for (int round = 0; round < 3; ++round) {
    for (size_t i = 0; i < trace_->blocks.size(); ++i) {
      ASSERT_TRUE(scheduler.Submit(trace_->blocks[i], false, trace_->setups[i], out).ok());
      ++submitted;
    }
    ASSERT_TRUE(scheduler.BeforeModelChange(out).ok());
    EXPECT_TRUE(scheduler.idle()) << "round " << round;
    EXPECT_EQ(written, submitted) << "round " << round;
  }
}

}  // namespace
}  // namespace perftk::cs_etm
