#!/usr/bin/env bash
# perftk unwind finds binaries under --symfs when they moved since the
# recording, and never unwinds with a file whose build id differs from the
# recorded one: those samples keep their ip and kernel chain and the summary
# counts them as "unknown map". perf's build-id cache is kept out of the way
# (perf record -N, HOME in the work dir): it would find the binary anyway.
source "$(dirname "$0")/lib/common.bash"
source "$LIB_DIR/unwind.bash"
require_perf
export HOME=$WORK
mkdir -p app
cat >app/prog.c <<'C'
#include <stdlib.h>
#include <unistd.h>
static volatile unsigned long sink;
__attribute__((noipa)) void leaf(int n) { for (int i = 0; i < n; i++) sink += i; }
__attribute__((noipa)) void middle(int n) { leaf(n); sink++; }
int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 3000;
  for (int r = 0; r < rounds; r++) middle(100000);
  _exit(0);  // see EXIT_NOTE in lib/unwind.bash
}
C
cc -O2 -fomit-frame-pointer -g -o app/prog app/prog.c
perf record -q -N -e cpu-clock --call-graph dwarf -o in.data -- ./app/prog >/dev/null
check_unwind in.data
cp out.data in_place.data
report_of out.data --no-children -g folded | has 'leaf;middle;main' || fail "leaf;middle;main not unwound"

# The binary moves to a sysroot: not found without --symfs, found with it,
# and then the output is the one unwound with the binary in place.
mkdir -p "sysroot$WORK/app"
mv app/prog "sysroot$WORK/app/prog"
# (Samples in ld.so's start-up may still unwind fully: only prog's own
# functions must be missing from every chain.)
no_chain_through_prog() {
  has 'unknown map' "$2" || fail "$1: the summary does not blame the map"
  report_of "$1" --no-children -g folded | has -E 'leaf;|middle;|;main' &&
    fail "$1: call chains were made without the recorded binary"
  return 0
}
"$PERFTK" unwind -i in.data -o moved.data 2>unwind.log
cat unwind.log
no_chain_through_prog moved.data unwind.log
"$PERFTK" unwind -i in.data -o out.data --symfs sysroot 2>unwind.log
cat unwind.log
unwound_fully_at_least 95
cmp in_place.data out.data || fail "--symfs output differs from the output with the binary in place"
echo "ok: --symfs gives the output of the binary in place"

# Another program at the recorded path: its build id differs, so it is not
# used; no sample gets a user frame.
sed 's/sink += i;/sink += i * 3;/' app/prog.c >app/other.c
cc -O2 -fomit-frame-pointer -g -o app/prog app/other.c
"$PERFTK" unwind -i in.data -o stale.data 2>stale.log
cat stale.log
no_chain_through_prog stale.data stale.log
echo "ok: a binary of another build id is not used"
