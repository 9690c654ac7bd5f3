#!/usr/bin/env bash
# An interrupted jit removes what it started (issue 15, item 2): on a
# recording of node with 20,000 functions (a run writes about 22,000 .so
# files, seconds of work), SIGINT, SIGTERM or SIGHUP at 10%, 35% and 60%
# of the run ends it with status 128+signal, no output, no *.tmp.*, and no
# jitted-*.so of the run left (whole or half-written); the recording and
# jitdump unchanged.
source "$(dirname "$0")/lib/common.bash"
source "$LIB_DIR/checks.bash"
source "$LIB_DIR/safety.bash"
require_perf
command -v node >/dev/null || skip "node is not installed (Node.js writes the jitdump)"
dump=$(record_node_functions perf.data 20000)
data_sha=$(sha_of perf.data)
dump_sha=$(sha_of "$dump")
# The signals go at 10%, 35% and 60% of a whole run, timed here.
mkdir whole
start=$(date +%s%N)
"$PERFTK" jit -q -i perf.data -o whole.data --jit-dir whole || fail "perftk jit failed"
run_ms=$((($(date +%s%N) - start) / 1000000))
rm -rf whole whole.data
[ "$run_ms" -ge 1000 ] || fail "a whole jit run takes $run_ms ms: too short to interrupt"
delays=$(awk -v ms="$run_ms" 'BEGIN { printf "%.2f %.2f %.2f", ms * 0.1 / 1000, ms * 0.35 / 1000, ms * 0.6 / 1000 }')
echo "a whole run: $run_ms ms; signals after $delays s"

for sig in INT TERM HUP; do
  for delay in $delays; do
    mkdir jd
    "${PERFTK_SIGINT[@]}" jit -q -i perf.data -o out.data --jit-dir jd 2>err.txt &
    interrupt $! $sig $delay
    what="jit SIG$sig after ${delay}s"
    check "$what: status $(signal_status $sig) (got $job_rc)" test "$job_rc" = "$(signal_status $sig)"
    check "$what: no temporary file ($(ls | grep tmp | tr '\n' ' '))" no_temps_in .
    check "$what: no output file" test ! -e out.data
    check "$what: no .so file left ($(find jd -type f | wc -l) left)" nothing_but_dirs_in jd
    rm -rf jd out.data out.data.tmp.*
  done
done
check "perf.data is unchanged" test "$(sha_of perf.data)" = "$data_sha"
check "the jitdump is unchanged" test "$(sha_of "$dump")" = "$dump_sha"
checks_summary
