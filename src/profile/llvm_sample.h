// LLVM's text sample profile (what clang -fprofile-sample-use reads, the
// format llvm-profgen writes) of one binary, from its AutoFDO counts: the
// ranges that ran straight through and the taken branches, with each
// instruction placed in the source by a SourceMap (on a real binary its
// DWARF: cs_etm/dwarf_source_map.h).
//
// Flat: an instruction of inlined code counts at the call site of the
// outermost inlined call, in the function it was inlined into (no nested
// inline profiles yet). Per function:
//   NAME:TOTAL:HEAD
//    OFFSET[.DISCRIMINATOR]: COUNT[ TARGET:CALLS]*
// OFFSET is the line minus the function's first line, modulo 2^16, as LLVM
// computes it; COUNT the largest count of the location's instructions
// (AutoFDO's and llvm-profgen's rule); TARGET a function a taken branch of
// the location entered at its first instruction; HEAD the taken branches
// into the function's first instruction; TOTAL the sum of COUNTs.
// Functions are written by decreasing TOTAL, then name.
#ifndef PERFTK_PROFILE_LLVM_SAMPLE_H_
#define PERFTK_PROFILE_LLVM_SAMPLE_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "profile/profile.h"

namespace perftk::profile {

struct SourceLocation {
  std::string function;        // the out-of-line function holding the instruction
  uint32_t line_offset = 0;    // line - the function's first line, mod 2^16
  uint32_t discriminator = 0;  // LLVM's base discriminator; 0 for none
};

class SourceMap {
 public:
  virtual ~SourceMap() = default;
  // Where the instruction at virtual address `address` is; nullopt when no
  // function holds it (then its counts are not written).
  virtual std::optional<SourceLocation> Locate(uint64_t address) const = 0;
  // The function whose first instruction is at `address`, if one is.
  virtual std::optional<std::string> FunctionAt(uint64_t address) const = 0;
};

// `counts`: AutoFDO counts, addresses relative to `base` (the binary's first
// PT_LOAD virtual address; the AutoFDO text's addresses); instructions are
// 4 bytes (AArch64). An error for a range whose last instruction is before
// its first.
absl::StatusOr<std::string> LlvmSampleText(const BinaryCounts& counts, uint64_t base,
                                           const SourceMap& map);

}  // namespace perftk::profile

#endif  // PERFTK_PROFILE_LLVM_SAMPLE_H_
