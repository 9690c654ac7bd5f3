#!/usr/bin/env bash
# perftk unwind unwinds on through a frame whose CFA is kept in %rbx (as
# glibc's lazy-binding trampoline _dl_runtime_resolve keeps it) when the
# function it called has not saved %rbx: the psABI keeps a callee-saved
# register's value across a frame that does not mention it, and so does
# perf's libunwind. libdw's own x86-64 defaults give that rule to %rax
# instead and end the chain at the trampoline; perftk resumes past it
# (src/unwind/process_unwinder.cc, RecoverRbx). In CI a sample in the first
# instructions of _dl_fixup, while _exit was bound lazily, made
# unwind_symfs.sh's chains differ from perf's one run in many; here every
# sample in spin() meets the case.
source "$(dirname "$0")/lib/common.bash"
source "$LIB_DIR/unwind.bash"
require_perf
[ "$(uname -m)" = x86_64 ] || skip "the %rbx-based frame is x86-64 code"
cat >prog.c <<'C'
#include <unistd.h>
static volatile unsigned long sink;
// A leaf that never touches %rbx: its CFI rows do not mention it.
__attribute__((noipa)) void spin(long n) {
  for (long i = 0; i < n; i++) sink += i;
}
// tramp(n) calls spin(n) from a 64-byte aligned stack, its own frame kept
// in %rbx (CFA = rbx + 16), as _dl_runtime_resolve does.
void tramp(long n);
__asm__(".text\n"
        ".globl tramp\n"
        ".type tramp, @function\n"
        "tramp:\n"
        ".cfi_startproc\n"
        "  push %rbx\n"
        ".cfi_adjust_cfa_offset 8\n"
        ".cfi_rel_offset %rbx, 0\n"
        "  mov %rsp, %rbx\n"
        ".cfi_def_cfa_register %rbx\n"
        "  and $-64, %rsp\n"
        "  call spin\n"
        "  mov %rbx, %rsp\n"
        ".cfi_def_cfa_register %rsp\n"
        "  pop %rbx\n"
        ".cfi_adjust_cfa_offset -8\n"
        ".cfi_restore %rbx\n"
        "  ret\n"
        ".cfi_endproc\n"
        ".size tramp, .-tramp\n");
int main(void) {
  for (int r = 0; r < 3000; r++) tramp(100000);
  _exit(0);  // see EXIT_NOTE in lib/unwind.bash
}
C
cc -O2 -g -fomit-frame-pointer -o prog prog.c
perf record -q -N -e cpu-clock --call-graph dwarf -o in.data -- ./prog >/dev/null
check_unwind in.data
report_of out.data --no-children -g folded | has 'spin;tramp;main;' ||
  fail "spin's chains end at tramp: $(report_of out.data --no-children -g folded | grep -m1 'spin;')"
unwound_fully_at_least 95
echo "ok: chains go on through the %rbx-based frame, as perf's do"
