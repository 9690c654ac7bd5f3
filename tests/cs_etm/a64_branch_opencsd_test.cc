// ClassifyA64 against OpenCSD's own instruction decoder, on every word of
// the A64 encoding spaces that hold branches, barriers and hints, and on
// millions of random words elsewhere: the fast decoder must stop at the
// instructions OpenCSD stops at, or the two paths' ranges differ.
//
// OpenCSD installs no header for its instruction decoder; the library
// exports TrcIDecode::DecodeInstruction, which reads and writes only the
// ocsd_instr_info it is given (the installed ocsd_if_types.h), so the test
// declares the class with just that member and calls it on a stand-in
// object.
#include <opencsd/ocsd_if_types.h>

#include <cstdint>
#include <random>

#include "absl/strings/str_format.h"
#include "cs_etm/a64_branch.h"
#include "gtest/gtest.h"

class TrcIDecode {
 public:
  ocsd_err_t DecodeInstruction(ocsd_instr_info* instr_info);
};

namespace perftk::cs_etm {
namespace {

struct OpenCsdView {
  A64Instruction instruction;
  std::optional<uint64_t> target;
};

class OpenCsd {
 public:
  explicit OpenCsd(const A64TraceFeatures& features) {
    info_.pe_type.arch = features.armv8_3 ? ARCH_AA64 : ARCH_V8;
    info_.pe_type.profile = profile_CortexA;
    info_.isa = ocsd_isa_aarch64;
    info_.dsb_dmb_waypoints = 0;  // as OpenCSD's ETMv4 decoder sets it
    info_.wfi_wfe_branch = features.wfi_wfe_branches ? 1 : 0;
  }

  OpenCsdView Classify(uint32_t word, uint64_t address) {
    info_.opcode = word;
    info_.instr_addr = address;
    EXPECT_EQ(decoder_->DecodeInstruction(&info_), OCSD_OK);
    OpenCsdView view;
    A64Instruction& got = view.instruction;
    switch (info_.type) {
      case OCSD_INSTR_BR:
        got.waypoint = A64Waypoint::kDirectBranch;
        view.target = info_.branch_addr;
        break;
      case OCSD_INSTR_BR_INDIRECT:
        got.waypoint = A64Waypoint::kIndirectBranch;
        break;
      case OCSD_INSTR_ISB:
        got.waypoint = A64Waypoint::kIsb;
        break;
      case OCSD_INSTR_WFI_WFE:
        got.waypoint = A64Waypoint::kWfiWfe;
        break;
      case OCSD_INSTR_TSTART:
        got.waypoint = A64Waypoint::kTstart;
        break;
      default:
        ADD_FAILURE() << absl::StrFormat("%#010x: OpenCSD type %d, not in A64Waypoint", word,
                                         static_cast<int>(info_.type));
        [[fallthrough]];
      case OCSD_INSTR_OTHER:
        break;
    }
    if (got.waypoint != A64Waypoint::kNone) {
      switch (info_.sub_type) {
        case OCSD_S_INSTR_BR_LINK:
          got.role = A64BranchRole::kLink;
          break;
        case OCSD_S_INSTR_V8_RET:
          got.role = A64BranchRole::kReturn;
          break;
        case OCSD_S_INSTR_V8_ERET:
          got.role = A64BranchRole::kExceptionReturn;
          break;
        default:
          break;
      }
      EXPECT_EQ(info_.is_link != 0, got.role == A64BranchRole::kLink)
          << absl::StrFormat("%#010x", word);
    }
    got.conditional = info_.is_conditional != 0;
    EXPECT_EQ(info_.instr_size, 4);
    return view;
  }

 private:
  ocsd_instr_info info_{};
  alignas(16) unsigned char object_[64] = {};  // the stand-in; DecodeInstruction reads no member
  TrcIDecode* decoder_ = reinterpret_cast<TrcIDecode*>(object_);
};

std::string Describe(const A64Instruction& i) {
  return absl::StrFormat("{waypoint %d, role %d, conditional %d}", static_cast<int>(i.waypoint),
                         static_cast<int>(i.role), i.conditional);
}

// Compares the words from `first` to `last` (inclusive) stepping by `step`;
// reports the first 20 differences of the test; returns how many there are.
int CompareRange(const A64TraceFeatures& features, uint64_t first, uint64_t last, uint64_t step,
                 int& reported) {
  OpenCsd opencsd(features);
  constexpr uint64_t kAddress = 0x400000;
  int differences = 0;
  for (uint64_t w = first; w <= last; w += step) {
    const auto word = static_cast<uint32_t>(w);
    OpenCsdView want = opencsd.Classify(word, kAddress);
    A64Instruction got = ClassifyA64(word, features);
    std::optional<uint64_t> target = A64DirectBranchTarget(word, kAddress);
    bool same = got == want.instruction &&
                (got.waypoint != A64Waypoint::kDirectBranch || target == want.target);
    if (!same) {
      ++differences;
      if (reported++ < 20) {
        ADD_FAILURE() << absl::StrFormat("%#010x (armv8_3 %d, wfi_wfe %d): perftk %s, OpenCSD %s",
                                         word, features.armv8_3, features.wfi_wfe_branches,
                                         Describe(got), Describe(want.instruction));
      }
    }
  }
  return differences;
}

const A64TraceFeatures kAllFeatures[] = {
    {.armv8_3 = true, .wfi_wfe_branches = false},
    {.armv8_3 = true, .wfi_wfe_branches = true},
    {.armv8_3 = false, .wfi_wfe_branches = false},
    {.armv8_3 = false, .wfi_wfe_branches = true},
};

// The encoding spaces with branches, barriers and hints: 0x14-0x17 and
// 0x94-0x97 (B, BL), 0x34-0x37 and 0xb4-0xb7 (CBZ, CBNZ, TBZ, TBNZ), 0x54
// (B.cond, BC.cond), 0xd5 (system: barriers, hints, TSTART), 0xd6-0xd7
// (register branches, with and without pointer authentication). Every 31st
// word of the first, every 11th of the rest: an odd stride meets every
// pattern of the low bits, where the register and option fields are (all
// of 0xd5-0xd7 word by word takes 10 s, too long for every test run).
TEST(ClassifyA64, AgreesWithOpenCsdOnBranchAndSystemWords) {
  int reported = 0;
  for (const A64TraceFeatures& features : kAllFeatures) {
    int differences = 0;
    for (uint32_t top :
         {0x14u, 0x17u, 0x94u, 0x97u, 0x34u, 0x35u, 0x36u, 0x37u, 0xb4u, 0xb5u, 0xb6u, 0xb7u}) {
      differences += CompareRange(features, uint64_t{top} << 24, (uint64_t{top} << 24) | 0xffffff,
                                  31, reported);
    }
    for (uint32_t top : {0x54u, 0xd5u, 0xd6u, 0xd7u}) {
      differences += CompareRange(features, uint64_t{top} << 24, (uint64_t{top} << 24) | 0xffffff,
                                  11, reported);
    }
    EXPECT_EQ(differences, 0);
  }
}

TEST(ClassifyA64, AgreesWithOpenCsdOnRandomWords) {
  std::mt19937 random(29);
  int reported = 0;
  for (const A64TraceFeatures& features : kAllFeatures) {
    int differences = 0;
    for (int i = 0; i < 1 << 20; ++i) {
      uint64_t word = random();
      differences += CompareRange(features, word, word, 1, reported);
    }
    EXPECT_EQ(differences, 0);
  }
}

TEST(ClassifyA64, KnownInstructions) {
  const A64TraceFeatures v8_3;
  auto classify = [&](uint32_t word) { return ClassifyA64(word, v8_3); };
  using W = A64Waypoint;
  using R = A64BranchRole;
  EXPECT_EQ(classify(0xd65f03c0u), (A64Instruction{W::kIndirectBranch, R::kReturn}));  // ret
  EXPECT_EQ(classify(0xd63f0020u), (A64Instruction{W::kIndirectBranch, R::kLink}));    // blr x1
  EXPECT_EQ(classify(0xd61f0200u), (A64Instruction{W::kIndirectBranch, R::kPlain}));   // br x16
  EXPECT_EQ(classify(0xd69f03e0u),
            (A64Instruction{W::kIndirectBranch, R::kExceptionReturn}));                // eret
  EXPECT_EQ(classify(0xd65f0bffu), (A64Instruction{W::kIndirectBranch, R::kReturn}));  // retaa
  EXPECT_EQ(ClassifyA64(0xd65f0bffu, {.armv8_3 = false}), A64Instruction{});  // retaa before v8.3
  EXPECT_EQ(classify(0x94000400u), (A64Instruction{W::kDirectBranch, R::kLink}));         // bl
  EXPECT_EQ(classify(0x14000010u), (A64Instruction{W::kDirectBranch, R::kPlain}));        // b
  EXPECT_EQ(classify(0x54000100u), (A64Instruction{W::kDirectBranch, R::kPlain, true}));  // b.eq
  EXPECT_EQ(classify(0x362800e3u), (A64Instruction{W::kDirectBranch, R::kPlain, true}));  // tbz
  EXPECT_EQ(classify(0x54000110u), (A64Instruction{W::kDirectBranch, R::kPlain, true}));  // bc.eq
  EXPECT_EQ(classify(0xd5233061u), (A64Instruction{W::kTstart}));  // tstart x1
  EXPECT_EQ(classify(0xd5033fdfu), (A64Instruction{W::kIsb}));     // isb
  EXPECT_EQ(classify(0xd5033f9fu), A64Instruction{});              // dsb sy
  EXPECT_EQ(classify(0xd503207fu), A64Instruction{});              // wfi
  EXPECT_EQ(ClassifyA64(0xd503207fu, {.wfi_wfe_branches = true}), (A64Instruction{W::kWfiWfe}));
  EXPECT_EQ(classify(0xd503201fu), A64Instruction{});  // nop
  EXPECT_EQ(classify(0x8b020020u), A64Instruction{});  // add x0, x1, x2
}

}  // namespace
}  // namespace perftk::cs_etm
