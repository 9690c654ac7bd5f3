#include "cs_etm/block_scheduler.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_format.h"
#include "cs_etm/frame_scan.h"

namespace perftk::cs_etm {
namespace {

// Whether a trace id's flow can carry from one of its blocks into the next.
// Every block ends with the end of trace, a discontinuity, which empties the
// ring of last branches and, with l and i, flushes the instruction count
// into a sample. Only i without l leaves a count (toward the next sample)
// that the next block goes on from. Otherwise each block starts from empty
// flows, and blocks decode independently.
bool FlowsCarryAcrossBlocks(const ItraceOptions& itrace) {
  return itrace.instructions && !itrace.last_branch;
}

}  // namespace

BlockScheduler::BlockScheduler(const DecodeOptions& options, const machine::Machines& model,
                               BinaryImages& images, const SampleEncoder& encoder,
                               const perf::BuildIdsByPath& build_ids, BlockWriter write_block)
    : inputs_{options, model, images, encoder, build_ids},
      write_block_(std::move(write_block)),
      jobs_(static_cast<size_t>(std::max(options.jobs, 1))),
      any_lane_(IsProfile(options.format) || !FlowsCarryAcrossBlocks(options.itrace)),
      batches_(std::make_unique<pipeline::OrderedBatches>(pipeline::OrderedBatches::Options{
          .jobs = jobs_,
          .chunk = 1,
          .max_in_flight = 2 * jobs_,
          // The caller runs blocks only if the system refused a thread.
          .caller_leaves = jobs_ - 1,
          .caller_runs = false})) {
  if (any_lane_) {
    for (size_t thread = 0; thread < jobs_; ++thread) {
      thread_lanes_.push_back(std::make_unique<DecodeLane>(inputs_));
    }
  }
}

BlockScheduler::~BlockScheduler() {
  batches_.reset();  // no lane runs once it is gone
}

absl::Status BlockScheduler::Submit(const TraceBlock& block, bool data_lasts,
                                    std::shared_ptr<const DecodeSetup> setup,
                                    pipeline::RecordSink& out) {
  auto job = std::make_unique<BlockJob>();
  job->block = block;
  job->setup = std::move(setup);
  job->model_generation = model_generation_;
  job->source = block.formatted ? -1 : static_cast<int64_t>(block.cpu);
  if (!block.formatted && block.cpu == kNoCpu) {
    if (job->setup->info.sources.size() != 1) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "raw trace at file offset %#x names no CPU: cannot tell which trace unit made it",
          block.file_offset));
    }
    job->source = job->setup->info.sources.front().cpu;
  }
  if (jobs_ > 1 && !data_lasts) {  // the trace outlives its record
    job->data.assign(block.data.begin(), block.data.end());
    job->block.data = base::Bytes(job->data);
  }
  job->views_input = jobs_ > 1 && data_lasts;
  if (any_lane_) {
    job->own_flows = std::make_unique<TraceFlows>();
    job->flows = job->own_flows.get();
  } else {
    std::unique_ptr<TraceFlows>& flows = flows_[job->source];
    if (!flows) flows = std::make_unique<TraceFlows>();
    job->flows = flows.get();
  }
  BlockJob* raw = job.get();
  if (any_lane_) {
    // The lane of the thread that runs it: no block waits for another.
    jobs_in_flight_.push_back(std::move(job));
    return batches_
        ->Submit(
            1, [this, raw](size_t thread, size_t, size_t) { thread_lanes_[thread]->Run(*raw); },
            WriterTo(out))
        .status();
  }
  TraceIdLanes::Assignment assignment;
  if (block.formatted) {
    raw->ids = TraceIdsFed(*raw);
    assignment = id_lanes_.Assign(raw->ids);
  } else {
    assignment.lane = static_cast<uint64_t>(job->source);
  }
  Lane& lane = lanes_[assignment.lane];
  if (!lane.lane) lane.lane = std::make_unique<DecodeLane>(inputs_);
  if (lane.last) assignment.after.push_back(*lane.last);
  DecodeLane* runner = lane.lane.get();
  const std::optional<TraceIdSet> ids = raw->ids;  // the job may be written in Submit
  jobs_in_flight_.push_back(std::move(job));
  absl::StatusOr<uint64_t> ticket = batches_->Submit(
      1, [runner, raw](size_t, size_t, size_t) { runner->Run(*raw); }, WriterTo(out),
      assignment.after);
  if (!ticket.ok()) return ticket.status();
  lane.last = *ticket;
  if (block.formatted) id_lanes_.Submitted(ids, assignment.lane, *ticket);
  return absl::OkStatus();
}

std::optional<TraceIdSet> BlockScheduler::TraceIdsFed(const BlockJob& job) {
  // Those the block's frames switch to that name a trace source of the
  // decoder.
  std::optional<TraceIdSet> ids = TraceIdsOfFrames(job.block.data);
  if (ids) {
    TraceIdSet known;
    for (const TraceSource& source : job.setup->info.sources) {
      known.set(DecoderTraceId(source, job.setup->trace_ids));
    }
    *ids &= known;
  }
  return ids;
}

absl::Status BlockScheduler::Pass(const perf::Record& record, pipeline::RecordSink& out) {
  return batches_->Pass(record, out, WriterTo(out));
}

absl::Status BlockScheduler::WriteAll(pipeline::RecordSink& out) {
  return batches_->Drain(WriterTo(out));
}

void BlockScheduler::Abandon() {
  batches_->Abandon();
  jobs_in_flight_.clear();
}

absl::Status BlockScheduler::BeforeModelChange(pipeline::RecordSink& out) {
  // Blocks in flight read the model: let them finish first.
  if (absl::Status s = WriteAll(out); !s.ok()) return s;
  ++model_generation_;
  return absl::OkStatus();
}

absl::Status BlockScheduler::WriteOldest(pipeline::RecordSink& out) {
  std::unique_ptr<BlockJob> job = std::move(jobs_in_flight_.front());
  jobs_in_flight_.pop_front();
  return write_block_(*job, out);
}

uint64_t BlockScheduler::OldestViewHeld() const {
  for (const std::unique_ptr<BlockJob>& job : jobs_in_flight_) {
    if (job->views_input) return job->block.file_offset;
  }
  return UINT64_MAX;
}

std::vector<const BranchProfile*> BlockScheduler::Profiles() const {
  std::vector<const BranchProfile*> profiles;
  for (const std::unique_ptr<DecodeLane>& lane : thread_lanes_) {
    if (lane->profile() != nullptr) profiles.push_back(lane->profile());
  }
  for (const auto& [key, lane] : lanes_) {
    if (lane.lane->profile() != nullptr) profiles.push_back(lane.lane->profile());
  }
  return profiles;
}

}  // namespace perftk::cs_etm
