#!/usr/bin/env bash
# perftk cs-etm-decode -o writes a perf.data that Debian's perf (no CoreSight
# support needed) reads: `perf script -F pid,tid,ip,brstack` on it prints
# exactly what --format=script prints, in file and pipe layout, and perf
# sees the loop edges 100 times each and 11 samples for --itrace=i100il64.
source "$(dirname "$0")/lib/common.bash"
command -v perf >/dev/null || skip "perf is not installed (Debian: linux-perf)"
ETM=${PERFTK_ETM_DATA_DIR:-$(dirname "$0")/../data/simpleperf-etm}
[ -r "$ETM/perf_etm.data" ] || skip "no simpleperf ETM recordings at $ETM"

for itrace in i100il64 il64 i1000il16; do
  "$PERFTK" cs-etm-decode -q -i "$ETM/perf_etm.data" --symfs "$ETM" --itrace=$itrace -o out.data
  "$PERFTK" cs-etm-decode -q -i "$ETM/perf_etm.data" --symfs "$ETM" --itrace=$itrace \
    --format=script -o ours.txt
  perf script -i out.data -F pid,tid,ip,brstack >perf.txt 2>perf.err || {
    cat perf.err >&2
    fail "perf script cannot read the output of --itrace=$itrace"
  }
  same_listing "perf script of --itrace=$itrace" perf.txt ours.txt
  # The same through a pipe (where perf adds "[unknown]" for the symbol it
  # cannot look up without the file's build ids).
  "$PERFTK" cs-etm-decode -q -i "$ETM/perf_etm.data" --symfs "$ETM" --itrace=$itrace -o - |
    perf script -i - -F pid,tid,ip,brstack 2>/dev/null | sed 's/ \[unknown\]//' >pipe.txt
  same_listing "perf script of the piped --itrace=$itrace" perf.txt pipe.txt
done

"$PERFTK" cs-etm-decode -q -i "$ETM/perf_etm.data" --symfs "$ETM" --itrace=i100il64 -o out.data
[ "$(perf script -i out.data -F ip 2>/dev/null | wc -l)" -eq 11 ] ||
  fail "--itrace=i100il64 should give 11 samples, as perf 6.1 with CoreSight does"

"$PERFTK" cs-etm-decode -q -i "$ETM/perf_etm.data" --symfs "$ETM" --itrace=b -o branches.data
perf script -i branches.data -F ip,addr 2>/dev/null | awk '$2 == "=>" {print $1 "->" $3}' | sort | uniq -c >edges.txt
grep -q ' 100 582b2b106c->582b2b1074$' edges.txt || { cat edges.txt >&2; fail "edge 0x106c->0x1074 x100"; }
grep -q ' 100 582b2b1080->582b2b105c$' edges.txt || { cat edges.txt >&2; fail "edge 0x1080->0x105c x100"; }
echo "ok: perf script reads cs-etm-decode output"
