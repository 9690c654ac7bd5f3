#include "programs.h"

#include <memory>

namespace perftk::etm_gen {

absl::StatusOr<DemoPrograms> BuildDemoPrograms() {
  DemoPrograms programs;
  Assembler user(kTextOffset);
  user.Label("main", true)
      .Nop()
      .Label("loop")
      .Bl("leaf_loop")
      .AddImm(1, 1, 1)
      .Cbz(3, "skip_syscall")
      .Bl("do_syscall")
      .Label("skip_syscall")
      .Bl("pick")
      .SubsImm(2, 2, 1)
      .BCond(Cond::kNe, "loop")
      .B("main");
  user.Label("leaf_loop", true)
      .AddImm(0, 0, 1)
      .Label("leaf_top")
      .SubsImm(4, 4, 1)
      .BCond(Cond::kNe, "leaf_top")
      .Ret();
  user.Label("pick", true)
      .Cbnz(5, "pick_b")
      .Nop()
      .Nop()
      .Ret()
      .Label("pick_b")
      .AddImm(6, 6, 2)
      .Ret();
  user.Label("do_syscall", true).Svc(0).Ret();
  absl::StatusOr<std::vector<uint32_t>> user_code = user.Finish();
  if (!user_code.ok()) return user_code.status();
  programs.user.shared_object = true;
  programs.user.link_base = 0;
  programs.user.code = *user_code;
  programs.user.symbols = user.symbols();
  programs.user.source_name = "etm_demo.s";
  for (const char* label :
       {"main", "loop", "leaf_loop", "leaf_top", "skip_syscall", "pick", "pick_b", "do_syscall"}) {
    programs.user_labels[label] = user.AddressOf(label);
  }

  Assembler kernel(kKernelBase + kTextOffset);
  kernel.Label("el0_svc", true)
      .Nop()
      .AddImm(9, 9, 1)
      .Label("k_loop")
      .SubsImm(10, 10, 1)
      .BCond(Cond::kNe, "k_loop")
      .Eret();
  absl::StatusOr<std::vector<uint32_t>> kernel_code = kernel.Finish();
  if (!kernel_code.ok()) return kernel_code.status();
  programs.kernel.shared_object = false;
  programs.kernel.link_base = kKernelBase;
  programs.kernel.code = *kernel_code;
  programs.kernel.symbols = kernel.symbols();
  programs.kernel_vector = kernel.AddressOf("el0_svc");
  return programs;
}

absl::Status WriteTo(DemoPrograms& programs, const std::string& dir) {
  programs.user_path = dir + "/etm_demo";
  programs.kernel_path = dir + "/etm_kernel.elf";
  if (absl::Status s = WriteElf(programs.user, programs.user_path); !s.ok()) return s;
  return WriteElf(programs.kernel, programs.kernel_path);
}

Decider RandomDecider(const DemoPrograms& programs, uint64_t process_base, uint64_t seed,
                      int taken_per_mille, int syscall_per_mille) {
  auto state = std::make_shared<uint64_t>(seed * 0x9e3779b97f4a7c15ULL + 1);
  // The cbz that skips the syscall sits right before "bl do_syscall".
  const uint64_t skip_branch = process_base + programs.user_labels.at("skip_syscall") - 8;
  return [state, skip_branch, taken_per_mille, syscall_per_mille](uint64_t address) {
    uint64_t x = *state;  // xorshift64
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    *state = x;
    const int roll = static_cast<int>(x % 1000);
    if (address == skip_branch) return roll >= syscall_per_mille;
    return roll < taken_per_mille;
  };
}

ThreadState MakeThread(const DemoPrograms& programs, int32_t pid, int32_t tid, uint64_t base,
                       Decider decide) {
  ThreadState thread;
  thread.pid = pid;
  thread.tid = tid;
  thread.user = LoadedCode{base, kTextOffset, &programs.user.code};
  thread.kernel = LoadedCode{kKernelBase, kTextOffset, &programs.kernel.code};
  thread.kernel_vector = programs.kernel_vector;
  thread.pc = base + programs.user_labels.at("main");
  thread.decide = std::move(decide);
  return thread;
}

}  // namespace perftk::etm_gen
