#!/usr/bin/env bash
# perftk unwind --jobs 2 on a recording whose 1,000th SAMPLE has a header
# size of 15 (shorter than its fixed fields) stops with exit 1 and a message
# naming the offset, never a crash, and leaves no output (issue 26, D4: the
# error path unmapped the input while the workers still read stack copies
# in it, SIGSEGV in most runs). Run 10 times per job count, since the crash
# depended on timing; the ASan build of the suite runs it too.
source "$(dirname "$0")/lib/common.bash"
require_perf
build_workload
perf record -q -e cpu-clock -F 20000 --call-graph dwarf,4096 -o in.data -- ./workload 150 2 \
  >/dev/null 2>&1 || skip "perf record --call-graph dwarf failed here"
offset=$(python3 "$LIB_DIR/break_record.py" in.data 9 1000 15) ||
  skip "the recording has fewer than 1,000 samples"
before=$(sha256sum <in.data)
for jobs in 1 2 3; do
  for run in $(seq 10); do
    set +e
    "$PERFTK" unwind -q --jobs "$jobs" -i in.data -o out.data 2>err.txt
    rc=$?
    set -e
    [ "$rc" -eq 1 ] || { cat err.txt >&2; fail "--jobs $jobs, run $run: exit $rc, not 1"; }
    has -F "$offset" err.txt || { cat err.txt >&2; fail "--jobs $jobs: the error does not name $offset"; }
    [ ! -e out.data ] || fail "--jobs $jobs: an output file was left"
    ls | has 'out.data.tmp' && fail "--jobs $jobs: a temporary file was left"
  done
done
[ "$(sha256sum <in.data)" = "$before" ] || fail "the input was modified"
echo "ok: 30 runs exit 1: $(head -1 err.txt)"
