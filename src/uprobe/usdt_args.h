// USDT argument specs ("-4@%edi", "8@-16(%rbp)", "-8@[sp, 16]", "4@$5") and
// their translation into the fetch arguments of the kernel's uprobe_events
// ("%di:s32", "-16(%bp):u64", "+16(%sp):s64", "\5:u32").
//
// Supported machines: x86_64 and i386 (AT&T operands), aarch64, s390.
// What fetch-args can express: a register (its low 8/16/32 bits through the
// type, %ah-style high bytes as an unsigned bitfield), a register plus a
// constant dereferenced, a constant, and a symbol relative to %rip (turned
// into "@+OFFSET", which the kernel resolves against the probed mapping). An
// index register, a bare %rip displacement, a vector register or an odd size
// cannot be: such an argument keeps its spec and gets `problem` instead of a
// `fetch`, so a caller can name it instead of dropping it.
#ifndef PERFTK_UPROBE_USDT_ARGS_H_
#define PERFTK_UPROBE_USDT_ARGS_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace perftk::uprobe {

struct UsdtArgument {
  std::string spec;  // as written in the note
  int size = 0;      // bytes: 1, 2, 4 or 8; 0 when the spec has none
  bool is_signed = false;
  std::string fetch;    // "LOCATION:TYPE" for uprobe_events; empty if it cannot be expressed
  std::string problem;  // why `fetch` is empty; empty otherwise
};

// For "SYMBOL+N(%rip)": the value X such that "@+X" in uprobe_events reads
// SYMBOL (the kernel adds X to the probed mapping's start minus the probe's
// file offset).
using SymbolFetchOffset = std::function<absl::StatusOr<uint64_t>(absl::string_view symbol)>;

// Splits a note's argument string at spaces outside "[...]" (aarch64's
// "[sp, 16]" holds one).
std::vector<std::string> SplitUsdtArguments(absl::string_view arguments);

// Translates one spec for ELF machine `machine` (EM_X86_64, EM_386,
// EM_AARCH64, EM_S390).
UsdtArgument TranslateUsdtArgument(absl::string_view spec, uint16_t machine,
                                   const SymbolFetchOffset& symbol_offset);

// Makes `argument` read the NUL-terminated string its value points to
// ("+0(LOCATION):string"): a spec gives only a size, so a char* is a
// pointer until the user says otherwise. Fails for a constant, a size other
// than a pointer's (`pointer_size`), or an argument without a fetch.
absl::Status ReadAsString(UsdtArgument* argument, int pointer_size);

// Every argument of a note's argument string, in order.
std::vector<UsdtArgument> TranslateUsdtArguments(absl::string_view arguments, uint16_t machine,
                                                 const SymbolFetchOffset& symbol_offset);

}  // namespace perftk::uprobe

#endif  // PERFTK_UPROBE_USDT_ARGS_H_
