#!/usr/bin/env bash
# perftk_qemu_etm claims a ground truth only for a log that is one
# thread's exact execution: on a small C program's qemu log it gives the
# truth cs-etm-decode decodes (--format=autofdo, and --itrace=i100il64's
# branch stacks), also linked statically (no ld.so, libc's IFUNCs resolved
# in the program), also when the program takes a signal (the
# handler entered from the syscall's return, qemu's sigreturn trampoline,
# code in no file, left untraced as an address filter would); the same log
# with one executed instruction dropped, or without -strace (libc's
# mapping unknown), is refused with a message, never turned into a
# recording (a block qemu logged but stopped before it ran is taken back);
# so is a PIE program, and a log of translation blocks
# (--blocks) without their in_asm listings. (A dropped instruction is found whenever
# the instruction before it does not allow the step; the target of an
# indirect branch cannot be checked.)
source "$(dirname "$0")/lib/common.bash"
PREFIX=/usr/aarch64-linux-gnu
command -v qemu-aarch64 >/dev/null || skip "no qemu-aarch64 (Debian: qemu-user)"
command -v aarch64-linux-gnu-gcc >/dev/null || skip "no aarch64-linux-gnu-gcc (Debian: gcc-aarch64-linux-gnu)"
[ -e "$PREFIX/lib/libc.so.6" ] || skip "no $PREFIX/lib/libc.so.6 (Debian: libc6-dev-arm64-cross)"
QEMU_ETM=${QEMU_ETM:-$(dirname "$(dirname "$PERFTK")")/tests/perftk_qemu_etm}
[ -x "$QEMU_ETM" ] || skip "no perftk_qemu_etm at $QEMU_ETM"

cat >prog.c <<'EOF'
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
static volatile int hits;
static void on_signal(int s) { hits += s; }
int main(int argc, char** argv) {
  if (argc > 1) {
    signal(SIGUSR1, on_signal);
    raise(SIGUSR1);
  }
  unsigned long sum = 0;
  for (int i = 0; i < 1000; ++i) sum += (unsigned long)i * i % 7;
  printf("%lu %d\n", sum, hits);
  return 0;
}
EOF
aarch64-linux-gnu-gcc -O2 -g -no-pie -o prog prog.c || fail "cannot build prog"
aarch64-linux-gnu-gcc -O2 -g -pie -fPIE -o prog-pie prog.c || fail "cannot build prog-pie"
qemu() { qemu-aarch64 -L "$PREFIX" -singlestep -d exec,nochain -D /dev/stderr "$@"; }
record() {
  "$QEMU_ETM" --program "$1" --prefix "$PREFIX" --out "$2" --truth-autofdo "$2.truth" \
    --expect-itrace i100il64 --expect-out "$2.samples"
}

qemu -strace ./prog 2>full.log >prog.out || fail "prog failed under qemu"
[ "$(cat prog.out)" = "2001 0" ] || fail "prog printed $(cat prog.out)"
record ./prog full.data <full.log >/dev/null || fail "perftk_qemu_etm refused the full log"
"$PERFTK" cs-etm-decode -q -i full.data --format=autofdo -o full.afdo
[ -s full.afdo ] && cmp -s full.data.truth full.afdo || fail "the decode differs from the truth"
echo "ok: the full log ($(wc -l <full.log) lines) decodes to its truth"

# Static: libc's code (IFUNC resolvers called through IRELATIVE, BLR) in
# the program itself, entered at its own entry; no ld.so.
aarch64-linux-gnu-gcc -O2 -g -static -o prog-static prog.c || fail "cannot build prog-static"
qemu -strace ./prog-static 2>static.log >static.out || fail "prog-static failed under qemu"
[ "$(cat static.out)" = "2001 0" ] || fail "prog-static printed $(cat static.out)"
record ./prog-static static.data <static.log >static.stats || fail "perftk_qemu_etm refused the static log"
has -F ' 1 mappings' static.stats || fail "a static program maps one file: $(cat static.stats)"
"$PERFTK" cs-etm-decode -q -i static.data --format=autofdo -o static.afdo
[ "$(grep -c '^// /' static.afdo)" -eq 1 ] || fail "the static decode has other binaries than prog"
cmp -s static.data.truth static.afdo || fail "the decode of the static program differs from the truth"
echo "ok: a static program decodes to its truth"

# A block qemu logged and then stopped before it ran ("Stopped execution
# of TB chain", which another thread's request causes) is no execution:
# the same recording and truth.
lines=$(grep -c '^Trace' full.log)
awk -v at=$((lines / 3)) '{ print } /^Trace/ && ++n == at {
  print "Trace 0: 0x7f0000001234 [0000000001009331/0000000000400000/00000001/00000201] "
  print "Stopped execution of TB chain before 0x7f0000001234 [0000000000400000] " }' \
  full.log >stopped.log
record ./prog stopped.data <stopped.log >stopped.stats || fail "perftk_qemu_etm refused stopped.log"
has -F ' 1 taken back' stopped.stats || fail "nothing taken back: $(cat stopped.stats)"
cmp -s full.data.truth stopped.data.truth && cmp -s full.data stopped.data ||
  fail "a stopped block changed the recording"

# One instruction of main's loop left out (a line in the middle of the run).
lines=$(grep -c '^Trace' full.log)
awk -v drop=$((lines / 2)) '/^Trace/ && ++n == drop { next } { print }' full.log >dropped.log
expect_exit 1 record ./prog dropped.data <dropped.log
has -E 'follows|goes to' cmd.err || fail "dropped line: $(cat cmd.err)"
[ ! -e dropped.data.truth ] || fail "a truth was written for a broken log"

qemu ./prog 2>nostrace.log >/dev/null
expect_exit 1 record ./prog nostrace.data <nostrace.log
has 'no -strace lines' cmd.err || fail "no strace: $(cat cmd.err)"

qemu -strace ./prog signal 2>signal.log >signal.out || fail "prog signal failed under qemu"
[ "$(cat signal.out)" = "2001 10" ] || fail "prog signal printed $(cat signal.out)"
record ./prog signal.data <signal.log >signal.stats || fail "perftk_qemu_etm refused the signal log"
has -E ' [1-9][0-9]* untraced' signal.stats || fail "no untraced trampoline: $(cat signal.stats)"
"$PERFTK" cs-etm-decode -q -i signal.data --format=autofdo -o signal.afdo
cmp -s signal.data.truth signal.afdo || fail "the decode of the signal run differs from the truth"
if command -v perf >/dev/null; then
  "$PERFTK" cs-etm-decode -q -i signal.data --itrace=i100il64 -o signal.il64
  brstack_listing signal.il64 >signal.got
  [ "$(wc -l <signal.got)" -gt 500 ] || fail "only $(wc -l <signal.got) il64 samples"
  cmp -s signal.data.samples signal.got || fail "il64 samples of the signal run differ from the truth"
fi
echo "ok: a signal handler and its return through qemu's trampoline decode to the truth"

# --blocks wants every block's listing (-d in_asm): without it, refused.
qemu-aarch64 -L "$PREFIX" -d exec,nochain -strace -D /dev/stderr ./prog 2>blocks.log >/dev/null
expect_exit 1 "$QEMU_ETM" --blocks --program ./prog --prefix "$PREFIX" --out blocks.data <blocks.log
has 'in_asm listed none' cmd.err || fail "--blocks without in_asm: $(cat cmd.err)"
qemu-aarch64 -L "$PREFIX" -d in_asm,exec,nochain -strace -D /dev/stderr ./prog 2>blocks.log >/dev/null
"$QEMU_ETM" --blocks --program ./prog --prefix "$PREFIX" --out blocks.data <blocks.log >/dev/null ||
  fail "--blocks refused a log with in_asm"

expect_exit 1 record ./prog-pie pie.data </dev/null
has 'non-PIE' cmd.err || fail "PIE: $(cat cmd.err)"
echo "ok: broken logs and PIE programs are refused"
