#!/usr/bin/env bash
# cs-etm-decode against perf 6.1 built with CoreSight: its perf script output
# for the real ETMv4 recording is stored in tests/data/cs_etm_perf61 (see the
# README there). Our --format=script, and perf script of our -o output, must
# print the same lines. With PERF_CORESIGHT=/path/to/perf (made by
# bench/build_perf_coresight.sh), perf also decodes our `perftk copy` of the
# recording live, which exercises the AUXTRACE index we write.
source "$(dirname "$0")/lib/common.bash"
require_perf
etm=${PERFTK_ETM_DATA_DIR:-$(dirname "$0")/../data/simpleperf-etm}
oracle=${PERFTK_SOURCE_DIR:?}/tests/data/cs_etm_perf61
[ -f "$etm/perf_etm.data" ] || skip "no CoreSight test data in $etm"

for itrace in il64 i100il64 il16 i7il4; do
  "$PERFTK" cs-etm-decode -q -i "$etm/perf_etm.data" --symfs "$etm" --itrace=$itrace \
    --format=script -o ours.$itrace.script
  same_listing "--itrace=$itrace --format=script" "$oracle/perf_etm.$itrace.script" ours.$itrace.script
  "$PERFTK" cs-etm-decode -q -i "$etm/perf_etm.data" --symfs "$etm" --itrace=$itrace -o ours.$itrace.data
  perf script -i ours.$itrace.data -F pid,tid,ip,brstack >ours.$itrace.perf 2>perf.err
  same_listing "perf script of -o (--itrace=$itrace)" "$oracle/perf_etm.$itrace.script" ours.$itrace.perf
done

# Branch samples: perf's lines, then our one trace-end sample of the last block.
"$PERFTK" cs-etm-decode -q -i "$etm/perf_etm.data" --symfs "$etm" --itrace=b -o ours.b.data
perf script -i ours.b.data -F pid,tid,ip,addr 2>perf.err | grep . >ours.b.perf
expected_lines=$(wc -l <"$oracle/perf_etm.b.script")
[ "$(wc -l <ours.b.perf)" -eq $((expected_lines + 1)) ] ||
  fail "--itrace=b: $(wc -l <ours.b.perf) branch samples, perf has $expected_lines (+1 trace end expected)"
head -n "$expected_lines" ours.b.perf >ours.b.head
same_listing "--itrace=b branch samples" "$oracle/perf_etm.b.script" ours.b.head
tail -1 ours.b.perf | has -E '^ *17235/17235 +[0-9a-f]+ => +0$' ||
  fail "--itrace=b: the last sample is not the trace end: $(tail -1 ours.b.perf)"

if [ -n "${PERF_CORESIGHT:-}" ]; then
  [ -x "$PERF_CORESIGHT" ] || fail "PERF_CORESIGHT=$PERF_CORESIGHT is not executable"
  mkdir -p symfs/data/local/tmp
  cp "$etm/etm_test_loop" symfs/data/local/tmp/
  "$PERFTK" copy -i "$etm/perf_etm.data" -o copy.data
  for itrace in il64 i100il64; do
    HOME=$WORK "$PERF_CORESIGHT" script -i copy.data --itrace=$itrace -F pid,tid,ip,brstack \
      --symfs symfs >live.$itrace 2>live.err || fail "perf (CoreSight) failed: $(tail -1 live.err)"
    grep -q 'random file access' live.err && fail "perf read our copy as a stream: its AUXTRACE index was not used"
    same_listing "live perf --itrace=$itrace on perftk copy" "$oracle/perf_etm.$itrace.script" live.$itrace
  done
  echo "ok: live perf with CoreSight agrees"
fi
echo "ok: perf 6.1 CoreSight decode reproduced"
