// LLVM's text sample profile (what clang -fprofile-sample-use reads, the
// format llvm-profgen writes) of one binary, from its AutoFDO counts: the
// ranges that ran straight through and the taken branches, with each
// instruction placed in the source by a SourceMap (on a real binary its
// DWARF: cs_etm/dwarf_source_map.h).
//
// An instruction of inlined code counts in the nested profile of the
// inlined callee, under the call site it was inlined at. Per function:
//   NAME:TOTAL:HEAD
//    OFFSET[.DISCRIMINATOR]: COUNT[ TARGET:CALLS]*
//    OFFSET[.DISCRIMINATOR]: CALLEE:TOTAL      (an inlined call, then its
//     OFFSET[.DISCRIMINATOR]: COUNT ...       profile, one space deeper)
// OFFSET is the line minus the (inlined) function's first line, modulo
// 2^16, as LLVM computes it; COUNT the largest count of the location's
// instructions, each times its duplication factor (AutoFDO's and
// llvm-profgen's rule), 0 for a location none of whose instructions ran
// in a function some of whose did (AutoFDO's and llvm-profgen's rule too:
// clang takes 0 as "never runs", a location left out as "unknown" and
// guesses its weight from its neighbours'); TARGET a function a
// taken branch of the location entered at its first instruction; HEAD the
// taken branches into the function's first instruction; TOTAL the sum of
// the COUNTs and of the inlined calls' TOTALs. Functions are written by
// decreasing TOTAL, then name; in a profile its body lines by location,
// then its inlined calls by location and callee.
#ifndef PERFTK_PROFILE_LLVM_SAMPLE_H_
#define PERFTK_PROFILE_LLVM_SAMPLE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "profile/profile.h"

namespace perftk::profile {

// One frame of an instruction's place: in `function`, at a line.
struct SourceFrame {
  std::string function;
  uint32_t line_offset = 0;    // line - the function's first line, mod 2^16
  uint32_t discriminator = 0;  // LLVM's base discriminator; 0 for none
  // The instruction's own frame only: the duplication factor of its
  // discriminator. Loop unrolling and vectorization make that many copies
  // of the location's code and scale each one's count down as much; a
  // count of the instruction times this is the location's (AutoFDO's and
  // llvm-profgen's rule; clang reads the base discriminator only).
  uint32_t duplication_factor = 1;
};
// The out-of-line function first (its frame at the outermost inlined call,
// if any), then each inlined callee at the next call or, last, at the
// instruction's own line. Never empty.
using SourceLocation = std::vector<SourceFrame>;

class SourceMap {
 public:
  virtual ~SourceMap() = default;
  // Where the instruction at virtual address `address` is; nullopt when no
  // function holds it (then its counts are not written).
  virtual std::optional<SourceLocation> Locate(uint64_t address) const = 0;
  // The function whose first instruction is at `address`, if one is.
  virtual std::optional<std::string> FunctionAt(uint64_t address) const = 0;
  // The code of the function holding `address` (inlined code: of the
  // function it is inlined into): its address ranges, [first, end), empty
  // when no function holds it.
  virtual std::vector<std::pair<uint64_t, uint64_t>> FunctionCode(uint64_t address) const = 0;
};

// `counts`: AutoFDO counts, addresses relative to `base` (the binary's first
// PT_LOAD virtual address; the AutoFDO text's addresses); instructions are
// 4 bytes (AArch64). An error for a range whose last instruction is before
// its first.
absl::StatusOr<std::string> LlvmSampleText(const BinaryCounts& counts, uint64_t base,
                                           const SourceMap& map);

}  // namespace perftk::profile

#endif  // PERFTK_PROFILE_LLVM_SAMPLE_H_
