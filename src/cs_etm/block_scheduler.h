// Sends trace blocks to decode lanes (decode_lane.h) and writes what they
// gave in block order, with the records that came after each block.
//
// Which lane: each block ends with an end of trace, which empties the ring
// of last branches and, with l and i, flushes the instruction count into a
// sample; so a block starts from empty flows and goes to the lane of the
// thread that takes it (one lane per thread: no block waits for another),
// unless samples are synthesized with i and without l.
// Then the count toward the next sample carries from block to block, per
// trace id, in a TraceFlows per source shared by the lanes, and the lanes are:
//   - raw trace (TRBE): one lane per CPU;
//   - formatted trace: one lane per trace id, as trace_id_lanes.h assigns
//     them from the ids each block's frames switch to (frame_scan.h).
// Profiles keep nothing from block to block: any lane, each with its own
// profile (Profiles() gives them to be added up).
//
// Blocks run on an ordered parallel stage (pipeline/ordered_batches.h), on
// `jobs` threads, while the caller reads the input and writes the results
// (a caller in the middle of a block could not hand out the next one, and
// a thread done with its own would wait); a block whose flows carry runs
// after the last block of its lane (and of the trace ids it feeds on other
// lanes). With jobs > 1 a block keeps a copy of its trace unless that trace
// is a view of the mapped input file, which lasts; with 1 the caller runs
// them, through the same code. Either way the output is the
// same bytes: results are written in block order, and records passed
// after a block wait behind it on the stage. At most 2 x jobs blocks are
// in flight, and at most 4096 records wait (then Pass waits for all
// blocks).
//
// The lanes read code through the pipeline's machine model, const; before
// it changes, BeforeModelChange waits for every block in flight and writes
// their results, so each block is decoded against the model as it was when
// it was submitted. Not thread-safe: one caller thread.
#ifndef PERFTK_CS_ETM_BLOCK_SCHEDULER_H_
#define PERFTK_CS_ETM_BLOCK_SCHEDULER_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "cs_etm/decode_lane.h"
#include "cs_etm/profile.h"
#include "cs_etm/synthesizer.h"
#include "cs_etm/trace_blocks.h"
#include "cs_etm/trace_id_lanes.h"
#include "machine/machines.h"
#include "perf/record.h"
#include "pipeline/ordered_batches.h"
#include "pipeline/tool.h"

namespace perftk::cs_etm {

class BlockScheduler {
 public:
  // Writes a finished block's results, on the caller's thread, in block
  // order, to the sink of the call that writes it.
  using BlockWriter = std::function<absl::Status(BlockJob& job, pipeline::RecordSink& out)>;

  // The lanes read `options`, `model`, `images`, `encoder` and `build_ids`
  // (see LaneInputs), which must outlive the scheduler.
  BlockScheduler(const DecodeOptions& options, const machine::Machines& model, BinaryImages& images,
                 const SampleEncoder& encoder, const perf::BuildIdsByPath& build_ids,
                 BlockWriter write_block);
  // Lets the running blocks finish, drops the others.
  ~BlockScheduler();
  BlockScheduler(const BlockScheduler&) = delete;
  BlockScheduler& operator=(const BlockScheduler&) = delete;

  // Sends `block` to its lane, to be decoded against `setup` and the model
  // as it is now. `data_lasts`: the block's bytes are a view of the mapped
  // input (perf::Record::lasting), valid after its record, and are not
  // copied. Fails on raw trace that names no CPU while the setup has
  // several sources.
  // The blocks finished by then are written to `out` (as by every call
  // below that takes one).
  absl::Status Submit(const TraceBlock& block, bool data_lasts,
                      std::shared_ptr<const DecodeSetup> setup, pipeline::RecordSink& out);
  // Waits for every block and writes everything (failing as WriteAll): the
  // machine model may change then, and blocks submitted after it see that
  // it did.
  absl::Status BeforeModelChange(pipeline::RecordSink& out);
  // Emits `record` to `out` behind every block submitted before it
  // (pipeline/ordered_batches.h's Pass).
  absl::Status Pass(const perf::Record& record, pipeline::RecordSink& out);
  // Waits for every block and writes everything.
  absl::Status WriteAll(pipeline::RecordSink& out);
  // Whether every block submitted is written.
  bool idle() const { return jobs_in_flight_.empty(); }
  // The input file offset of the oldest block in flight that reads its
  // trace from the input mapping, UINT64_MAX if none (pipeline::Tool's
  // OldestViewHeld).
  uint64_t OldestViewHeld() const;
  // The run failed: lets the running blocks finish (no lane reads the
  // model after it) and drops the others.
  void Abandon();
  // The lanes' profiles (kAutoFdo, kBolt), in lane order.
  std::vector<const BranchProfile*> Profiles() const;

 private:
  // A decode lane and the ticket of the last block submitted to it.
  struct Lane {
    std::unique_ptr<DecodeLane> lane;
    std::optional<uint64_t> last;
  };

  // The trace ids a formatted block may feed (nullopt: any).
  static std::optional<TraceIdSet> TraceIdsFed(const BlockJob& job);
  // Writes the oldest block (finished) to `out`.
  absl::Status WriteOldest(pipeline::RecordSink& out);
  // The ordered stage's writer of the blocks, to `out`.
  auto WriterTo(pipeline::RecordSink& out) {
    return [this, &out](uint64_t) { return WriteOldest(out); };
  }

  uint64_t model_generation_ = 0;  // counts the changes of the model
  const LaneInputs inputs_;
  BlockWriter write_block_;
  const size_t jobs_;
  // Whether blocks may go to any lane (no flow carries from block to block).
  const bool any_lane_;
  std::map<uint64_t, Lane> lanes_;
  std::map<int64_t, std::unique_ptr<TraceFlows>> flows_;  // by source
  TraceIdLanes id_lanes_;  // the lanes of formatted blocks whose flows carry
  std::deque<std::unique_ptr<BlockJob>> jobs_in_flight_;  // the oldest first
  // When any lane will do: one per thread of batches_, by its lane number.
  std::vector<std::unique_ptr<DecodeLane>> thread_lanes_;
  // After the lanes and jobs: joined before they go.
  std::unique_ptr<pipeline::OrderedBatches> batches_;
};

}  // namespace perftk::cs_etm

#endif  // PERFTK_CS_ETM_BLOCK_SCHEDULER_H_
