// The samples `perftk cs-etm-decode --itrace=...` must produce from a
// ground truth (truth.h), following perf's CoreSight synthesis rules as
// synthesizer.h states them, but computed from what the simulator executed,
// not from anything the decoder saw:
//  - every `period` instructions a sample at the instruction completing it;
//  - at a thread switch, a trace-on and the end of an AUX block (which the
//    decoder sees as the end of the trace, a discontinuity), a sample at
//    the last executed instruction with the instructions since the last one;
//  - the branch stack: the taken branches (and exceptions) from one executed
//    stretch to the next, newest first, emptied at switches and trace-on and
//    when a block starts, never crossing a thread;
//  - branch samples: each taken branch, trace start (from 0), trace stop (to 0).
#ifndef PERFTK_TESTS_CS_ETM_GEN_EXPECTED_H_
#define PERFTK_TESTS_CS_ETM_GEN_EXPECTED_H_

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "truth.h"

namespace perftk::etm_gen {

struct ExpectedSample {
  bool branch = false;  // a branch sample (else an instruction sample)
  uint32_t cpu = 0;
  TruthContext context;
  uint64_t time = 0;
  uint64_t ip = 0;
  uint64_t addr = 0;                                    // branch samples: target
  uint64_t period = 0;                                  // instruction samples
  std::vector<std::pair<uint64_t, uint64_t>> branches;  // newest first
};

struct ExpectOptions {
  bool instructions = false;
  uint64_t period = 100000;
  bool last_branch = false;
  uint32_t last_branch_size = 64;
  bool branches = false;
};

// The samples of one CPU's truth fed in pieces (e.g. buffer by buffer),
// in the order the decoder emits them.
class ExpectedSampleModel {
 public:
  ExpectedSampleModel(uint32_t cpu, const ExpectOptions& options);
  ~ExpectedSampleModel();
  void Feed(const std::vector<TruthEvent>& events);
  // The samples so far, which the model forgets.
  std::vector<ExpectedSample> Take();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

// In the order the decoder emits them for this CPU.
std::vector<ExpectedSample> ExpectedSamples(const CpuTruth& truth, const ExpectOptions& options);

}  // namespace perftk::etm_gen

#endif  // PERFTK_TESTS_CS_ETM_GEN_EXPECTED_H_
