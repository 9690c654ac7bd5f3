#!/usr/bin/env bash
# An interrupted copy or aslr removes what it started (issue 15, item 2):
# SIGINT, SIGTERM or SIGHUP sent at several points of a run (its input
# trickles in through a pipe for 3 s, so the run is surely under way) ends
# it with status 128+signal, no *.tmp.* and no output left, the input
# unchanged.
source "$(dirname "$0")/lib/common.bash"
source "$LIB_DIR/checks.bash"
source "$LIB_DIR/safety.bash"
require_perf
build_workload
perf record -q -F 20000 -g -e cpu-clock -o - -- ./workload 1000 1 2>/dev/null >in.pipe ||
  skip "perf record -o - failed"
input_sha=$(sha_of in.pipe)

for tool in copy aslr; do
  for sig in INT TERM HUP; do
    for delay in 0.4 1.2 2.0; do
      trickle in.pipe 10 0.3 | "${PERFTK_SIGINT[@]}" $tool -i - -o out.data 2>err.txt &
      interrupt $! $sig "$delay"
      check_ended_by "$tool SIG$sig after ${delay}s" $sig out.data
    done
  done
done
check "the input is unchanged" test "$(sha_of in.pipe)" = "$input_sha"
checks_summary
