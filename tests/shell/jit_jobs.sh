#!/usr/bin/env bash
# perftk jit --jobs 2 (a second thread creates the .so files ahead) against
# --jobs 1 on a Node.js recording, into the same directory: the same .so
# files byte for byte, the same samples and mmaps in perf script, the same
# build-id table; and --jobs out of range is refused.
source "$(dirname "$0")/lib/common.bash"
source "$LIB_DIR/jit_node.bash"
require_perf
require_node

BENCH_MS=300 record_node perf.data
mkdir out one
perftk_jit -i perf.data -o one.data --jit-dir out --jobs 1
cp -p out/* one/
rm out/*
perftk_jit -i perf.data -o two.data --jit-dir out --jobs 2
[ "$(ls out | wc -l)" -gt 100 ] || fail "only $(ls out | wc -l) .so files"
diff -r one out >/dev/null || fail ".so files differ between --jobs 1 and 2: $(diff -rq one out | head -3)"

for jobs in one two; do
  samples_of $jobs.data >$jobs.samples
  perf script -i $jobs.data --show-mmap-events -F tid,time,ip,sym 2>/dev/null |
    grep 'PERF_RECORD_MMAP2' | sed -E "s/ [0-9a-f]+:[0-9a-f]+ [0-9]+ [0-9]+\]/ <dev ino>]/" >$jobs.mmaps
  perf buildid-list -i $jobs.data 2>/dev/null | sort >$jobs.buildids
done
grep -q 'JS:\*fib' two.samples || fail "no JS:*fib sample: $(head -3 two.samples)"
same_listing "perf script samples (--jobs 2 vs 1)" one.samples two.samples
[ "$(grep -c jitted- two.mmaps)" -gt 100 ] || fail "few jitted mmaps: $(head -3 two.mmaps)"
same_listing "MMAP2 records (--jobs 2 vs 1)" one.mmaps two.mmaps
[ "$(grep -c jitted- two.buildids)" -gt 100 ] || fail "few build ids: $(head -3 two.buildids)"
same_listing "perf buildid-list (--jobs 2 vs 1)" one.buildids two.buildids

set +e
"$PERFTK" jit -i perf.data -o bad.data --jit-dir out --jobs 3 2>err.txt
rc=$?
set -e
[ $rc -eq 2 ] || fail "--jobs 3: exit status $rc (expected 2, a usage error)"
grep -q -- '--jobs' err.txt || fail "--jobs 3: $(cat err.txt)"
[ ! -e bad.data ] || fail "--jobs 3 wrote an output file"
echo "ok: $(ls out | wc -l) .so files, $(wc -l <two.samples) samples, $(wc -l <two.mmaps) mmaps"
