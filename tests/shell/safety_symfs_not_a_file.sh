#!/usr/bin/env bash
# A FIFO, folder or device where a binary under --symfs belongs is an error
# (exit 1) that names it, as the README says; it was a warning ("no file
# for ...") and exit 0 (issue 30, D9). It is never opened (a FIFO there
# would block the open of a reader).
source "$(dirname "$0")/lib/common.bash"
source "$LIB_DIR/checks.bash"
source "$LIB_DIR/safety.bash"
require_perf
ETM=${PERFTK_ETM_DATA_DIR:-$(dirname "$0")/../data/simpleperf-etm}
[ -r "$ETM/perf_etm.data" ] || skip "no simpleperf ETM recordings at $ETM"
RUN_TIMEOUT=30

for kind in fifo dir; do
  mkdir -p "etm_$kind"
  if [ $kind = fifo ]; then mkfifo "etm_$kind/etm_test_loop"; else mkdir "etm_$kind/etm_test_loop"; fi
  run "$PERFTK" cs-etm-decode -q -i "$ETM/perf_etm.data" --symfs "etm_$kind" --format=autofdo \
    -o out.afdo
  check "cs-etm-decode, a $kind under --symfs: exit 1 (got $rc)" test "$rc" = 1
  check "cs-etm-decode, a $kind under --symfs: named ($(last_error))" \
    err_has "etm_$kind/etm_test_loop: where the binary of .* belongs is a (FIFO|directory)"
  check "cs-etm-decode: no output" test ! -e out.afdo
done

build_workload
perf record -q -e cpu-clock --call-graph dwarf,4096 -o dwarf.data -- ./workload 20 1 \
  >/dev/null 2>&1 || skip "perf record --call-graph dwarf failed here"
mkdir -p "sym$WORK"
mkfifo "sym$WORK/workload"
run "$PERFTK" unwind -q -i dwarf.data --symfs sym -o out.data
check "unwind, a FIFO under --symfs: exit 1 (got $rc)" test "$rc" = 1
check "unwind, a FIFO under --symfs: named ($(last_error))" \
  err_has "sym$WORK/workload: where the binary of .*workload belongs is a FIFO"
check "unwind: no output" test ! -e out.data
check "the FIFO is still there, never opened" test -p "sym$WORK/workload"
checks_summary
