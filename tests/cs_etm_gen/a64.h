// A tiny AArch64 assembler for test programs: the few instructions the ETM
// generator needs, encoded as 32-bit words by hand (Arm ARM, A64 base
// instructions), with labels for branch targets, and the inverse
// classification the simulator uses to walk the code it produced.
#ifndef PERFTK_TESTS_CS_ETM_GEN_A64_H_
#define PERFTK_TESTS_CS_ETM_GEN_A64_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace perftk::etm_gen {

enum class Cond : uint8_t { kEq = 0, kNe = 1, kGe = 10, kLt = 11 };

// How an instruction moves control, as trace sees it.
enum class Flow : uint8_t {
  kNext,             // falls through (NOP, ADD, SUBS, ...)
  kBranch,           // B: always taken, target in the instruction
  kCall,             // BL: always taken, target in the instruction, links
  kCondBranch,       // B.cond, CBZ, CBNZ: taken or not, target in the instruction
  kReturn,           // RET: indirect, always taken
  kExceptionReturn,  // ERET: indirect, always taken, leaves the exception level
  kSyscall,          // SVC: takes an exception (not a branch)
};

struct Decoded {
  Flow flow = Flow::kNext;
  int64_t offset = 0;  // branch target minus instruction address
};

// Classifies a word this assembler emits (other words are kNext).
Decoded Classify(uint32_t word);

class Assembler {
 public:
  // Code is laid out from `origin` (the link address of the first word).
  explicit Assembler(uint64_t origin) : origin_(origin) {}

  // Defines `name` at the next instruction; with `function`, it is a symbol.
  Assembler& Label(const std::string& name, bool function = false);
  Assembler& Nop();
  Assembler& AddImm(int rd, int rn, uint32_t imm12);
  Assembler& SubsImm(int rd, int rn, uint32_t imm12);
  Assembler& B(const std::string& target);
  Assembler& Bl(const std::string& target);
  Assembler& BCond(Cond cond, const std::string& target);
  Assembler& Cbz(int rt, const std::string& target);
  Assembler& Cbnz(int rt, const std::string& target);
  Assembler& Ret();
  Assembler& Eret();
  Assembler& Svc(uint16_t imm16);

  struct Symbol {
    std::string name;
    uint64_t address = 0;
    uint64_t size = 0;
  };
  // Resolves labels. Errors name an undefined label or an out-of-range branch.
  absl::StatusOr<std::vector<uint32_t>> Finish();
  const std::vector<Symbol>& symbols() const { return symbols_; }
  uint64_t origin() const { return origin_; }
  uint64_t AddressOf(const std::string& label) const { return labels_.at(label); }

 private:
  enum class Fixup { kImm26, kImm19 };
  struct Pending {
    size_t index;
    Fixup kind;
    std::string label;
  };
  Assembler& Emit(uint32_t word);
  Assembler& EmitBranch(uint32_t base, Fixup kind, const std::string& target);
  uint64_t here() const { return origin_ + 4 * words_.size(); }

  uint64_t origin_;
  std::vector<uint32_t> words_;
  std::map<std::string, uint64_t> labels_;
  std::vector<Pending> pending_;
  std::vector<Symbol> symbols_;
};

}  // namespace perftk::etm_gen

#endif  // PERFTK_TESTS_CS_ETM_GEN_A64_H_
