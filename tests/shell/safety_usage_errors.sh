#!/usr/bin/env bash
# Every usage error exits 2, as the help texts say (issue 15, item 7):
# option values outside what --help allows, for cs-etm-decode, jit and
# uprobe-offset. Each gives a message and writes no output file.
source "$(dirname "$0")/lib/common.bash"
source "$LIB_DIR/checks.bash"
source "$LIB_DIR/safety.bash"
require_perf
copy_etm_recording
etm=(cs-etm-decode -i etm/perf_etm.data --symfs etm -o bad.out)
build_workload
perf record -q -e cpu-clock -o perf.data -- ./workload 10 >/dev/null 2>&1
jit=(jit -i perf.data -o bad.out --jit-dir .)

# usage_error ARGS...: perftk ARGS exits 2 with a message, no output file.
usage_error() {
  run "$PERFTK" "$@"
  check "$*: exit 2 (got $rc: $(last_error))" test "$rc" = 2
  check "$*: a message" test -s "$WORK/err.txt"
  check "$*: no output file" test ! -e bad.out
  rm -f bad.out
}

usage_error "${etm[@]}" --format=bogus
usage_error "${etm[@]}" --jobs 0
usage_error "${etm[@]}" --jobs 257
usage_error "${etm[@]}" --itrace=xyz
usage_error "${etm[@]}" --itrace=l0
usage_error "${etm[@]}" --itrace=i0
usage_error "${etm[@]}" --itrace=il2000
usage_error "${jit[@]}" --jobs 1000
usage_error "${jit[@]}" --jobs 0
usage_error "${jit[@]}" --jobs 3
usage_error uprobe-offset --format=bogus workload main
usage_error uprobe-offset --return workload main
checks_summary
