#!/usr/bin/env bash
# A multi-threaded program traced under qemu-aarch64: perftk_qemu_etm
# records each guest thread (qemu's vCPU N) as thread pid + N on CPU N, with
# a trace stream of its own, and joins the syscall lines other threads' log
# lines cut (qemu -strace prints a call and its result apart, and glues
# another thread's Trace line to an unfinished call). cs-etm-decode's
# --format=autofdo equals the truth byte for byte, and its i1000il64
# samples (read back by perf script, per CPU) the truth's, each thread's
# samples with its own tid; --jobs 2 writes the same. Control: the truth's
# samples with the two workers' tids swapped differ.
source "$(dirname "$0")/lib/common.bash"
PREFIX=/usr/aarch64-linux-gnu
command -v qemu-aarch64 >/dev/null || skip "no qemu-aarch64 (Debian: qemu-user)"
command -v aarch64-linux-gnu-gcc >/dev/null || skip "no aarch64-linux-gnu-gcc (Debian: gcc-aarch64-linux-gnu)"
[ -e "$PREFIX/lib/libc.so.6" ] || skip "no $PREFIX/lib/libc.so.6 (Debian: libc6-dev-arm64-cross)"
command -v perf >/dev/null || skip "no perf (Debian: linux-perf) to read the samples back"
QEMU_ETM=${QEMU_ETM:-$(dirname "$(dirname "$PERFTK")")/tests/perftk_qemu_etm}
[ -x "$QEMU_ETM" ] || skip "no perftk_qemu_etm at $QEMU_ETM"

cat >threads.c <<'EOF'
#include <pthread.h>
#include <stdio.h>
static unsigned long work(unsigned long n) {
  unsigned long s = 0;
  for (unsigned long i = 0; i < n; ++i) s += i * i % 7;
  return s;
}
static void* run(void* arg) {
  *(unsigned long*)arg = work(*(unsigned long*)arg);
  return 0;
}
int main(void) {
  pthread_t t[2];
  unsigned long r[2] = {20000, 30000};
  for (int i = 0; i < 2; ++i) pthread_create(&t[i], 0, run, &r[i]);
  unsigned long m = work(10000);
  for (int i = 0; i < 2; ++i) pthread_join(t[i], 0);
  printf("%lu %lu %lu\n", m, r[0], r[1]);
  return 0;
}
EOF
aarch64-linux-gnu-gcc -O2 -g -no-pie -o threads threads.c -lpthread || fail "cannot build threads"
qemu-aarch64 -L "$PREFIX" -singlestep -d exec,nochain -strace -D /dev/stderr ./threads \
  2>&1 >threads.out |
  "$QEMU_ETM" --cpus 4 --program ./threads --prefix "$PREFIX" --out perf.data \
    --truth-autofdo truth.afdo --expect-itrace i1000il64 --expect-out truth.samples >stats.txt ||
  fail "qemu-aarch64 | perftk_qemu_etm failed"
[ "$(cat threads.out)" = "19999 39998 59999" ] || fail "threads printed $(cat threads.out)"
has -F ' 3 threads' stats.txt || fail "not 3 threads: $(cat stats.txt)"
echo "traced: $(cat stats.txt)"

"$PERFTK" cs-etm-decode -q -i perf.data --format=autofdo -o got.afdo
cmp -s truth.afdo got.afdo || fail "--format=autofdo differs from the ground truth"
"$PERFTK" cs-etm-decode -q -i perf.data --format=autofdo --jobs 2 -o jobs2.afdo
cmp -s got.afdo jobs2.afdo || fail "--jobs 2 differs from --jobs 1"
echo "ok: --format=autofdo equals the truth"

"$PERFTK" cs-etm-decode -q -i perf.data --itrace=i1000il64 -o il64.data
brstack_listing il64.data | sort -s -n -k1,1 >got.samples
sort -s -n -k1,1 truth.samples >want.samples
for tid in 1000 1001 1002; do
  [ "$(grep -c " 1000/$tid " want.samples)" -gt 20 ] || fail "few samples of thread $tid in the truth"
done
cmp -s want.samples got.samples ||
  fail "il64 samples differ from the truth: $(diff want.samples got.samples | head -2 | cut -c1-160)"
echo "ok: $(wc -l <got.samples) il64 samples of 3 threads equal the truth's"

sed -e 's| 1000/1001 | 1000/XXXX |; s| 1000/1002 | 1000/1001 |; s| 1000/XXXX | 1000/1002 |' \
  want.samples >swapped.samples
! cmp -s swapped.samples got.samples || fail "control: swapped threads equal the decode"
echo "ok: control differs"
