// DecodeLane alone (issue 31): a block's errors are its own (the lane
// remakes a decoder after a block with errors), and a new model generation
// makes the lane look its address spaces up again. The blocks are those of
// simpleperf's real recordings (tests/data/simpleperf-etm: perf_etm.data,
// formatted ETMv4, and perf_with_unformatted_trace.data, raw ETE).
#include "cs_etm/decode_lane.h"

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "corrupt_inputs.h"
#include "etm_recording.h"
#include "gtest/gtest.h"
#include "machine/events.h"
#include "machine/machines.h"

namespace perftk::cs_etm {
namespace {

// The process perf_etm.data traced.
constexpr int32_t kTracedPid = 17235;

class DecodeLaneTest : public ::testing::TestWithParam<DecoderChoice> {
 protected:
  static void SetUpTestSuite() {
    formatted_ = ReadEtmRecording("perf_etm.data").release();
    raw_ = ReadEtmRecording("perf_with_unformatted_trace.data").release();
  }
  static void TearDownTestSuite() {
    delete formatted_;
    delete raw_;
    formatted_ = raw_ = nullptr;
  }

  // Lanes decode `recording` against a model of its own.
  void UseRecording(EtmRecording& recording) {
    recording_ = &recording;
    readings_ = std::make_unique<LaneReadings>("il64", 1, recording_->header);
    readings_->options.decoder = GetParam();
    ApplyModelRecords(recording_->records, model_);
  }

  LaneInputs Inputs() const {
    return LaneInputs{readings_->options, model_, readings_->images, *readings_->encoder,
                      readings_->build_ids};
  }

  // The recording's largest block: the one the tests rerun.
  size_t LargestBlock() const {
    size_t largest = 0;
    for (size_t i = 0; i < recording_->blocks.size(); ++i) {
      if (recording_->blocks[i].data.size() > recording_->blocks[largest].data.size()) largest = i;
    }
    return largest;
  }

  // A job of block `index` of the recording (its data `data` if given),
  // after `model_generation` changes of the model.
  std::unique_ptr<BlockJob> Job(size_t index, uint64_t model_generation,
                                const std::vector<std::byte>* data = nullptr) const {
    auto job = std::make_unique<BlockJob>();
    job->block = recording_->blocks[index];
    if (data != nullptr) job->block.data = base::Bytes(*data);
    job->setup = recording_->setups[index];
    job->source = job->block.formatted ? -1 : static_cast<int64_t>(job->block.cpu);
    job->own_flows = std::make_unique<TraceFlows>();
    job->flows = job->own_flows.get();
    job->model_generation = model_generation;
    return job;
  }

  // Runs `job` on `lane`; its text.
  static std::string Run(DecodeLane& lane, BlockJob& job) {
    lane.Run(job);
    EXPECT_TRUE(job.status.ok()) << job.status;
    return Contents(job.samples);
  }

  // Makes the traced pid a new process forked from one that maps nothing,
  // as a reused pid would be: its address space is new and empty.
  void ReplaceTracedProcess() {
    machine::ForkEvent fork;
    fork.pid = fork.tid = kTracedPid;
    fork.ppid = fork.ptid = 1;
    ASSERT_TRUE(model_.host().Apply(fork).ok());
    ASSERT_EQ(model_.host().FindUserMaps(kTracedPid)->Snapshot().size(), 0u);
  }

  static EtmRecording* formatted_;
  static EtmRecording* raw_;
  EtmRecording* recording_ = nullptr;
  std::unique_ptr<LaneReadings> readings_;
  machine::Machines model_;
};

EtmRecording* DecodeLaneTest::formatted_ = nullptr;
EtmRecording* DecodeLaneTest::raw_ = nullptr;

// A block with a decode error, then the real one on the same lane: the
// real one decodes as on a new lane and counts no error (a decoder that
// kept counting would give it the first block's). With the fast decoder
// chosen, the broken block goes to OpenCSD and the real one does not.
TEST_P(DecodeLaneTest, ABlocksErrorsAreItsOwn) {
  UseRecording(*raw_);
  ASSERT_TRUE(readings_->encoder);
  const size_t index = LargestBlock();
  ASSERT_FALSE(recording_->blocks[index].formatted);
  const std::vector<std::byte> bad(
      reinterpret_cast<const std::byte*>(kImpossibleRange),
      reinterpret_cast<const std::byte*>(kImpossibleRange) + sizeof(kImpossibleRange));

  DecodeLane fresh(Inputs());
  std::unique_ptr<BlockJob> alone = Job(index, 0);
  const std::string expected = Run(fresh, *alone);
  ASSERT_FALSE(expected.empty());
  ASSERT_EQ(alone->errors, 0u);

  DecodeLane lane(Inputs());
  std::unique_ptr<BlockJob> broken = Job(index, 0, &bad);
  Run(lane, *broken);
  ASSERT_EQ(broken->errors, 1u);
  EXPECT_NE(broken->first_error.find("impossible range"), std::string::npos) << broken->first_error;
  for (int again = 0; again < 2; ++again) {
    std::unique_ptr<BlockJob> after = Job(index, 0);
    EXPECT_EQ(Run(lane, *after), expected) << again;
    EXPECT_EQ(after->errors, 0u) << again;
    EXPECT_EQ(after->first_error, "") << again;
  }
}

// After the model changes, a job of the next generation sees the new
// address space. The generation is what tells the lane to look again:
// a job that does not bring one decodes against the maps found before
// (the scheduler never sends one after a change).
TEST_P(DecodeLaneTest, ANewModelGenerationIsLookedUpAgain) {
  UseRecording(*formatted_);
  ASSERT_TRUE(readings_->encoder);
  const size_t index = LargestBlock();
  DecodeLane lane(Inputs());
  DecodeLane unaware(Inputs());
  std::unique_ptr<BlockJob> before = Job(index, 0);
  const std::string mapped = Run(lane, *before);
  ASSERT_EQ(Run(unaware, *Job(index, 0)), mapped);

  ReplaceTracedProcess();
  DecodeLane fresh(Inputs());
  const std::string unmapped = Run(fresh, *Job(index, 1));
  ASSERT_NE(unmapped, mapped);  // no code to follow: other samples
  std::unique_ptr<BlockJob> after = Job(index, 1);
  EXPECT_EQ(Run(lane, *after), unmapped);
  EXPECT_EQ(Run(unaware, *Job(index, 0)), mapped);
}

INSTANTIATE_TEST_SUITE_P(Decoders, DecodeLaneTest,
                         ::testing::Values(DecoderChoice::kFast, DecoderChoice::kOpenCsd),
                         [](const ::testing::TestParamInfo<DecoderChoice>& info) {
                           return info.param == DecoderChoice::kFast ? "Fast" : "OpenCsd";
                         });

}  // namespace
}  // namespace perftk::cs_etm
