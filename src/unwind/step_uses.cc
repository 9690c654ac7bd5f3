#include "unwind/step_uses.h"

#include <dwarf.h>

namespace perftk::unwind {
namespace {

// What evaluating one DWARF expression the way libdw's unwinder does reads.
struct ExpressionUses {
  RegisterSet registers;
  bool cfa = false;           // the CFA (and so the CFA's registers)
  bool reads_memory = false;  // a dereference, or a location read at the end
  bool dereferences = false;  // reads memory other than at the end
};

ExpressionUses UsesOf(const Dwarf_Op* ops, size_t count) {
  ExpressionUses uses;
  bool location = false;  // libdw reads the result from memory when it is a location
  for (size_t i = 0; i < count; ++i) {
    const Dwarf_Op& op = ops[i];
    const uint8_t atom = op.atom;
    if (atom >= DW_OP_reg0 && atom <= DW_OP_reg31) {
      uses.registers.Add(atom - DW_OP_reg0);
    } else if (atom >= DW_OP_breg0 && atom <= DW_OP_breg31) {
      uses.registers.Add(atom - DW_OP_breg0);
    } else if (atom == DW_OP_regx || atom == DW_OP_bregx) {
      if (op.number >= RegisterSet::kMaxRegisters) {
        uses.registers = RegisterSet::All();
      } else {
        uses.registers.Add(op.number);
      }
    } else if (atom == DW_OP_call_frame_cfa) {
      uses.cfa = true;
      location = true;
    } else if (atom == DW_OP_stack_value) {
      location = false;
    } else if (atom == DW_OP_deref || atom == DW_OP_deref_size) {
      uses.reads_memory = true;
      uses.dereferences = true;
    } else if ((atom >= DW_OP_lit0 && atom <= DW_OP_lit31) || atom == DW_OP_addr ||
               (atom >= DW_OP_const1u && atom <= DW_OP_consts) || atom == DW_OP_dup ||
               atom == DW_OP_drop || atom == DW_OP_over || atom == DW_OP_pick ||
               atom == DW_OP_swap || atom == DW_OP_rot || atom == DW_OP_abs || atom == DW_OP_and ||
               atom == DW_OP_div || atom == DW_OP_minus || atom == DW_OP_mod || atom == DW_OP_mul ||
               atom == DW_OP_neg || atom == DW_OP_not || atom == DW_OP_or || atom == DW_OP_plus ||
               atom == DW_OP_plus_uconst || atom == DW_OP_shl || atom == DW_OP_shr ||
               atom == DW_OP_shra || atom == DW_OP_xor || atom == DW_OP_bra ||
               (atom >= DW_OP_eq && atom <= DW_OP_ne) || atom == DW_OP_skip || atom == DW_OP_nop) {
      // Works on the expression's own stack.
    } else {
      uses.registers = RegisterSet::All();  // an operation not read here: anything
      uses.reads_memory = true;
      uses.dereferences = true;
    }
  }
  if (location) uses.reads_memory = true;
  return uses;
}

}  // namespace

bool StepUses::ValueMatters(size_t q, size_t reads, const RegisterSet& later) const {
  if (!described || !simple || reads != loaded.size()) return true;
  return later.Has(loaded[q]) || loaded[q] == return_address;
}

RegisterSet StepUses::Before(const RegisterSet& later) const {
  if (!described) return RegisterSet::All();
  if (answered_ && asked_ == later) return answer_;
  RegisterSet before = always;
  for (const auto& [regno, uses] : copies) {
    if (later.Has(regno)) before |= uses;
  }
  answered_ = true;
  asked_ = later;
  answer_ = before;
  return before;
}

StepUses StepUsesOf(Dwarf_Frame* frame, size_t registers) {
  StepUses step;
  step.described = true;
  ExpressionUses cfa;
  Dwarf_Op* cfa_ops = nullptr;
  size_t cfa_count = 0;
  if (dwarf_frame_cfa(frame, &cfa_ops, &cfa_count) == 0) cfa = UsesOf(cfa_ops, cfa_count);
  const int return_address = dwarf_frame_info(frame, nullptr, nullptr, nullptr);
  step.return_address = return_address;
  step.simple = !cfa.reads_memory;
  for (size_t regno = 0; regno < registers; ++regno) {
    Dwarf_Op ops_mem[3];
    Dwarf_Op* ops = nullptr;
    size_t count = 0;
    if (dwarf_frame_register(frame, static_cast<int>(regno), ops_mem, &ops, &count) != 0) {
      continue;  // libdw leaves the register unset
    }
    RegisterSet uses;
    bool reads_memory = false;
    if (count == 0) {
      if (ops != nullptr) {  // undefined (or a rule libdw skips)
        if (static_cast<int>(regno) == return_address) step.outermost = true;
        continue;
      }
      uses.Add(regno);  // the same value
    } else {
      const ExpressionUses expression = UsesOf(ops, count);
      uses = expression.registers;
      reads_memory = expression.reads_memory;
      if (expression.cfa) {
        uses |= cfa.registers;
        reads_memory = reads_memory || cfa.reads_memory;
      }
      if (expression.dereferences) step.simple = false;
      if (expression.reads_memory && !expression.dereferences) {
        step.loaded.push_back(static_cast<uint16_t>(regno));  // the one read at the end
      }
    }
    if (reads_memory || static_cast<int>(regno) == return_address) {
      step.always |= uses;
    } else {
      step.copies.emplace_back(static_cast<uint16_t>(regno), uses);
    }
  }
  return step;
}

}  // namespace perftk::unwind
