#include "a64.h"

#include "absl/strings/str_cat.h"

namespace perftk::etm_gen {
namespace {

constexpr uint32_t kNop = 0xd503201f;
constexpr uint32_t kB = 0x14000000;
constexpr uint32_t kBl = 0x94000000;
constexpr uint32_t kBCond = 0x54000000;
constexpr uint32_t kCbz = 0xb4000000;   // 64-bit form
constexpr uint32_t kCbnz = 0xb5000000;  // 64-bit form
constexpr uint32_t kRet = 0xd65f03c0;   // RET X30
constexpr uint32_t kEret = 0xd69f03e0;
constexpr uint32_t kSvc = 0xd4000001;
constexpr uint32_t kAddImm = 0x91000000;   // ADD Xd, Xn, #imm12
constexpr uint32_t kSubsImm = 0xf1000000;  // SUBS Xd, Xn, #imm12

int64_t SignExtend(uint64_t value, int bits) {
  uint64_t sign = 1ULL << (bits - 1);
  return static_cast<int64_t>((value ^ sign) - sign);
}

}  // namespace

Decoded Classify(uint32_t word) {
  if ((word & 0xfc000000u) == kB) return {Flow::kBranch, SignExtend(word & 0x3ffffff, 26) * 4};
  if ((word & 0xfc000000u) == kBl) return {Flow::kCall, SignExtend(word & 0x3ffffff, 26) * 4};
  if ((word & 0xff000010u) == kBCond || (word & 0xfe000000u) == kCbz) {
    return {Flow::kCondBranch, SignExtend((word >> 5) & 0x7ffff, 19) * 4};
  }
  if (word == kRet) return {Flow::kReturn, 0};
  if (word == kEret) return {Flow::kExceptionReturn, 0};
  if ((word & 0xffe0001fu) == kSvc) return {Flow::kSyscall, 0};
  return {Flow::kNext, 0};
}

Assembler& Assembler::Label(const std::string& name, bool function) {
  labels_[name] = here();
  if (function) {
    if (!symbols_.empty() && symbols_.back().size == 0) {
      symbols_.back().size = here() - symbols_.back().address;
    }
    symbols_.push_back({name, here(), 0});
  }
  return *this;
}

Assembler& Assembler::Emit(uint32_t word) {
  words_.push_back(word);
  return *this;
}

Assembler& Assembler::EmitBranch(uint32_t base, Fixup kind, const std::string& target) {
  pending_.push_back({words_.size(), kind, target});
  return Emit(base);
}

Assembler& Assembler::Nop() { return Emit(kNop); }
Assembler& Assembler::AddImm(int rd, int rn, uint32_t imm12) {
  return Emit(kAddImm | ((imm12 & 0xfff) << 10) | (rn << 5) | rd);
}
Assembler& Assembler::SubsImm(int rd, int rn, uint32_t imm12) {
  return Emit(kSubsImm | ((imm12 & 0xfff) << 10) | (rn << 5) | rd);
}
Assembler& Assembler::B(const std::string& target) { return EmitBranch(kB, Fixup::kImm26, target); }
Assembler& Assembler::Bl(const std::string& target) {
  return EmitBranch(kBl, Fixup::kImm26, target);
}
Assembler& Assembler::BCond(Cond cond, const std::string& target) {
  return EmitBranch(kBCond | static_cast<uint32_t>(cond), Fixup::kImm19, target);
}
Assembler& Assembler::Cbz(int rt, const std::string& target) {
  return EmitBranch(kCbz | rt, Fixup::kImm19, target);
}
Assembler& Assembler::Cbnz(int rt, const std::string& target) {
  return EmitBranch(kCbnz | rt, Fixup::kImm19, target);
}
Assembler& Assembler::Ret() { return Emit(kRet); }
Assembler& Assembler::Eret() { return Emit(kEret); }
Assembler& Assembler::Svc(uint16_t imm16) { return Emit(kSvc | (uint32_t{imm16} << 5)); }

absl::StatusOr<std::vector<uint32_t>> Assembler::Finish() {
  for (const Pending& p : pending_) {
    auto it = labels_.find(p.label);
    if (it == labels_.end())
      return absl::InvalidArgumentError(absl::StrCat("undefined label ", p.label));
    int64_t delta =
        (static_cast<int64_t>(it->second) - static_cast<int64_t>(origin_ + 4 * p.index)) / 4;
    int bits = p.kind == Fixup::kImm26 ? 26 : 19;
    if (delta >= (int64_t{1} << (bits - 1)) || delta < -(int64_t{1} << (bits - 1))) {
      return absl::InvalidArgumentError(absl::StrCat("branch to ", p.label, " out of range"));
    }
    uint32_t field = static_cast<uint32_t>(delta) & ((1u << bits) - 1);
    words_[p.index] |= p.kind == Fixup::kImm26 ? field : field << 5;
  }
  pending_.clear();
  if (!symbols_.empty() && symbols_.back().size == 0) {
    symbols_.back().size = here() - symbols_.back().address;
  }
  return words_;
}

}  // namespace perftk::etm_gen
