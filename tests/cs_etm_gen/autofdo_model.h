// What AutoFDO's create_llvm_prof (Debian autofdo 0.19) must report for each
// function of the user binary, computed from the generator's own knowledge,
// never from anything perftk decoded:
//
//  - text route (create_llvm_prof --profiler=text on --format=autofdo): the
//    profile holds every executed range and taken branch, so the counts come
//    from the simulator's truth: every range the user code executed, every
//    taken direct branch (from the code word at its end);
//  - perf route (--profiler=perf on the perf.data with branch stacks): AutoFDO
//    reads only branch stacks (sample_reader.cc, PerfDataSampleReader::Append):
//    each entry is a branch, and the stretch from entry i's target to the
//    source of the newer entry i - 1 is a range; so the counts come from the
//    expected samples (expected.h), the ground truth's samples for an --itrace.
//
// Then, as AutoFDO 0.19 aggregates (profile.cc, instruction_map.cc):
//  - a range counts toward the function holding its start, once per BYTE
//    from its start to the address of its last instruction: AutoFDO walks
//    addresses one by one (an x86 habit), so an A64 range of n instructions
//    adds 4n - 3 to the function's total;
//  - a branch whose target is the start of a function adds to that
//    function's head count (calls, and a loop back to a function's start),
//    when the function it leaves is written too;
//  - a function is written only when sum(count * (end - start)) over its
//    ranges exceeds max(10, 5e-6 of the same sum over the binary).
// `instructions` is the plain count of executed instructions (text route).
#ifndef PERFTK_TESTS_CS_ETM_GEN_AUTOFDO_MODEL_H_
#define PERFTK_TESTS_CS_ETM_GEN_AUTOFDO_MODEL_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "expected.h"
#include "programs.h"
#include "truth.h"

namespace perftk::etm_gen {

struct FunctionCounts {
  uint64_t total = 0;
  uint64_t head = 0;
  uint64_t instructions = 0;
};

class AutoFdoModel {
 public:
  // `bases`: the user binary's load address per pid.
  AutoFdoModel(const DemoPrograms& programs, std::map<int32_t, uint64_t> bases);

  void AddTruth(const std::vector<TruthEvent>& events);
  void AddSample(const ExpectedSample& sample);

  // Per function name, only those AutoFDO writes.
  std::map<std::string, FunctionCounts> TextRoute() const { return Emitted(text_); }
  std::map<std::string, FunctionCounts> PerfRoute() const { return Emitted(perf_); }

 private:
  struct Route {
    std::map<std::string, FunctionCounts> functions;
    std::map<std::string, uint64_t> weight;                         // sum of count * (end - start)
    std::map<std::pair<std::string, std::string>, uint64_t> calls;  // (from, to) function
    uint64_t all_weight = 0;
  };
  // Link address of a runtime address of process `pid`'s user code, if it is one.
  bool ToLink(int32_t pid, uint64_t address, uint64_t* link) const;
  const Assembler::Symbol* FunctionAt(uint64_t link) const;
  // [start, last]: link addresses of the first and the last instruction.
  void AddRange(Route& route, uint64_t start, uint64_t last) const;
  void AddBranch(Route& route, uint64_t from, uint64_t to) const;
  std::map<std::string, FunctionCounts> Emitted(const Route& route) const;

  const DemoPrograms& programs_;
  std::map<int32_t, uint64_t> bases_;
  Route text_;
  Route perf_;
};

}  // namespace perftk::etm_gen

#endif  // PERFTK_TESTS_CS_ETM_GEN_AUTOFDO_MODEL_H_
