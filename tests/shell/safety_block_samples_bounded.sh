#!/usr/bin/env bash
# One block of trace whose samples are far larger than the memory a run
# may take: simpleperf's ETMv4 loop trace 1,500 times over in one AUX
# record (tests/cs_etm/replay_etm_trace.py, 590 KB), decoded with
# --itrace=i10l64 into 276 MB of script lines or 190 MB of perf records.
# A block's samples waited in memory until the block was written (545 MB
# for 2,000 copies); past 8 MB they now wait in a nameless file in $TMPDIR.
# Under a 160 MB address space limit, --jobs 1 and 2, both formats: exit
# 0, and perf script reads the records as the script lines say. A TMPDIR
# that cannot take the file is an error naming it, exit 1, and no output
# file (11 of the 12 checks fail with the build before). Not under ASan,
# whose allocator reserves more address space than any such limit.
source "$(dirname "$0")/lib/common.bash"
source "$LIB_DIR/checks.bash"
ETM=${PERFTK_ETM_DATA_DIR:-$(dirname "$0")/../data/simpleperf-etm}
[ -r "$ETM/perf_etm.data" ] || skip "no simpleperf ETM recordings at $ETM"
command -v python3 >/dev/null || skip "no python3"
command -v perf >/dev/null || skip "perf is not installed (Debian: linux-perf)"
asan_build && skip "an ASan build: ulimit -v cannot be applied"

python3 "$LIB_DIR/../../cs_etm/replay_etm_trace.py" "$ETM/perf_etm.data" big.data 1 1500
decode() {  # decode JOBS ARGS...: cs-etm-decode of big.data under 160 MB
  local jobs=$1
  shift
  bash -c 'ulimit -v 160000; exec "$@"' bash "$PERFTK" cs-etm-decode -q -i big.data \
    --symfs "$ETM" --itrace=i10l64 --jobs "$jobs" "$@"
}

for jobs in 1 2; do
  rc=0
  decode $jobs --format=script -o - 2>script.$jobs.err | cksum >script.$jobs.sum ||
    rc=${PIPESTATUS[0]}
  check "--jobs $jobs, script lines under 160 MB: exit 0 ($(head -c 300 script.$jobs.err))" \
    test "$rc" = 0 -a ! -s script.$jobs.err
  check "--jobs $jobs: 276 MB of script lines" \
    grep -Eq '^[0-9]+ 275853780$' script.$jobs.sum
  rc=0
  decode $jobs -o - 2>perf.$jobs.err |
    perf script -i - -F pid,tid,ip,brstack 2>/dev/null | sed 's/ \[unknown\]//' | cksum \
      >perf.$jobs.sum || rc=${PIPESTATUS[0]}
  check "--jobs $jobs, perf records under 160 MB: exit 0 ($(head -c 300 perf.$jobs.err))" \
    test "$rc" = 0 -a ! -s perf.$jobs.err
  check "--jobs $jobs: perf script of the records prints the script lines" \
    cmp -s perf.$jobs.sum script.1.sum
done
check "--jobs 2's script lines are --jobs 1's" cmp -s script.2.sum script.1.sum

# A temporary directory that cannot take the file.
rc=0
TMPDIR=$WORK/missing "$PERFTK" cs-etm-decode -q -i big.data --symfs "$ETM" --itrace=i10l64 \
  --format=script -o out.txt 2>tmpdir.err || rc=$?
check "TMPDIR missing: exit 1 (got $rc)" test "$rc" = 1
check "TMPDIR missing: the error names it ($(head -c 300 tmpdir.err))" \
  grep -q "temporary file in $WORK/missing (TMPDIR): No such file or directory" tmpdir.err
check "TMPDIR missing: no output file" test ! -e out.txt
checks_summary
