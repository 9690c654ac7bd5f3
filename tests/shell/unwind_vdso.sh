#!/usr/bin/env bash
# Samples in the vDSO are unwound (issue 24): a loop calling clock_gettime
# (gcc -O2 -fomit-frame-pointer, --call-graph dwarf) spends most samples in
# [vdso]; perf unwinds them through the vDSO image perf record keeps in the
# build-id cache, and so does perftk unwind (1,815 of 1,922 samples were not
# unwound, "unknown map"): every report mode and perf script equal perf's.
# With the cache empty, perftk reads this process's own vDSO, whose build id
# is the recorded one on this kernel: the same output. aslr keeps them.
source "$(dirname "$0")/lib/common.bash"
source "$LIB_DIR/unwind.bash"
require_perf
# The program ends with _exit, as the other compared programs do: exit's
# handlers run code without CFI, where perf's libunwind guesses callers by
# frame pointer and perftk never guesses (a sample there differs by chance).
cat >clock.c <<'C'
#include <time.h>
#include <unistd.h>
static volatile long sink;
__attribute__((noipa)) void read_clock(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  sink += ts.tv_nsec;
}
__attribute__((noipa)) void loop(long n) { for (long i = 0; i < n; i++) read_clock(); }
int main(void) { loop(20000000); _exit(0); }
C
cc -O2 -fomit-frame-pointer -g -o clock clock.c
perf record -q -e cpu-clock --call-graph dwarf -o in.data -- ./clock
# The share of samples in the vDSO (percent).
in_vdso=$(report_of in.data --no-children --sort dso -g none | awk '$2 == "[vdso]" { print int($1) }')
[ "${in_vdso:-0}" -gt 50 ] || skip "only ${in_vdso:-0}% of the samples in the vDSO (no vDSO clock here?)"
check_unwind in.data
report_of out.data --no-children -g folded --sort sym | has 'read_clock;loop;main' ||
  fail "no chain from the vDSO up to main"

# The build-id cache empty: this process's own vDSO (same kernel, same id).
mkdir empty_cache
PERF_BUILDID_DIR=$WORK/empty_cache HOME=$WORK/empty_cache "$PERFTK" unwind -q -i in.data -o own.data
cmp out.data own.data || fail "unwinding with this process's vDSO differs from the cached image's"

# aslr unwinds before it removes the stacks: main keeps its children share.
"$PERFTK" aslr -q -i in.data -o aslr.data
main_share() { report_of "$1" --children --sort sym -g none | awk '$NF == "main" { print int($1) }'; }
in_share=$(report_of out.data --children --sort sym -g none | awk '$NF == "main" { print int($1) }')
check_share=$(main_share aslr.data)
[ "${check_share:-0}" -ge 90 ] && [ "$check_share" -eq "$in_share" ] ||
  fail "aslr: main has ${check_share:-no}% with children, unwind's output ${in_share}%"
echo "ok: the samples in the vDSO ($in_vdso%) unwound as perf does; aslr keeps main at $check_share%"
