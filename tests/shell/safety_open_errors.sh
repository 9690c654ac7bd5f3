#!/usr/bin/env bash
# Only a file that is not there is missing (issue 30, D4). Under a low
# `ulimit -n`, opening a binary failed with EMFILE, and that was taken for a
# missing binary: unwind wrote samples without call chains, cs-etm-decode
# dropped recordings' counts with a misleading warning, both with exit 0.
# Now, for every descriptor limit from 5 to 40, each run either writes
# exactly what it writes without a limit, or ends with exit 1, no output,
# and a message that names the limit ("Too many open files" and
# `ulimit -n`); never exit 0 with other output. Some limit must give the
# error, and some the full output (so both sides are checked).
source "$(dirname "$0")/lib/common.bash"
source "$LIB_DIR/checks.bash"
source "$LIB_DIR/safety.bash"
require_perf
# UBSan's vptr check tests memory with a pipe (sanitizer_common's
# IsAccessibleMemoryRange): under a low `ulimit -n` that fails, and it
# reports objects that are there as missing. The release run checks this.
asan_build && skip "an ASan+UBSan build cannot run under a low ulimit -n"
ETM=${PERFTK_ETM_DATA_DIR:-$(dirname "$0")/../data/simpleperf-etm}
[ -r "$ETM/perf_etm.data" ] || skip "no simpleperf ETM recordings at $ETM"
build_workload
perf record -q -e cpu-clock --call-graph dwarf,4096 -o dwarf.data -- ./workload 50 1 \
  >/dev/null 2>&1 || skip "perf record --call-graph dwarf failed here"

# sweep NAME OUT CMD...: runs CMD (writing OUT) without a limit, then under
# each limit, and checks the rule above.
sweep() {
  local name=$1 out=$2
  shift 2
  "$@" 2>/dev/null || fail "$name without a limit failed"
  mv "$out" "$out.want"
  local n errors=0 full=0 bad=""
  for n in $(seq 5 40); do
    rm -f "$out"
    run bash -c 'ulimit -n "$1"; shift; exec "$@"' _ "$n" "$@"
    if [ "$rc" = 0 ] && cmp -s "$out" "$out.want"; then
      full=$((full + 1))
    elif [ "$rc" = 1 ] && [ ! -e "$out" ] && err_has 'Too many open files' &&
      err_has 'ulimit -n'; then
      errors=$((errors + 1))
    else
      bad="$bad $n(exit $rc: $(last_error | cut -c1-120))"
    fi
  done
  check "$name: every limit gives the full output or a clear error (bad:${bad:- none})" \
    test -z "$bad"
  check "$name: some limit gives the error ($errors) and some the full output ($full)" \
    test "$errors" -gt 0 -a "$full" -gt 0
}

sweep "unwind --jobs 2" unwound.data "$PERFTK" unwind -q --jobs 2 -i dwarf.data -o unwound.data
recordings=()
for i in $(seq 1 12); do
  cp "$ETM/perf_etm.data" "etm$i.data"
  recordings+=(-i "etm$i.data")
done
sweep "cs-etm-decode, 12 recordings, --jobs 2" profile.afdo "$PERFTK" cs-etm-decode -q \
  --symfs "$ETM" --jobs 2 "${recordings[@]}" --format=autofdo -o profile.afdo
checks_summary
