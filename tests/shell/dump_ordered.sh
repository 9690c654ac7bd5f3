#!/usr/bin/env bash
# perftk dump --ordered hands out samples in the order perf script shows them
# (timestamp order by FINISHED_ROUND), on a system-wide recording whose stored
# order is not sorted.
source "$(dirname "$0")/lib/common.bash"
require_perf
build_workload
perf record -q -e cpu-clock -a -o in.data -- ./workload 300 1 >/dev/null 2>&1 ||
  skip "system-wide recording is not allowed here"
sample_times() { grep 'type=SAMPLE' | grep -o ' time=[0-9]*' | cut -d= -f2; }
"$PERFTK" dump -i in.data | sample_times >stored.times
"$PERFTK" dump -i in.data --ordered | sample_times >ordered.times
perf script -i in.data -F time --ns 2>/dev/null | tr -d ' :.' | sed 's/^0*//' >perf.times
[ "$(wc -l <stored.times)" -gt 100 ] || fail "too few samples to test ordering"
sort -n -c ordered.times || fail "--ordered output is not sorted by time"
same_listing "sample times in order" perf.times ordered.times
sort -n stored.times | cmp -s - ordered.times || fail "--ordered lost or duplicated samples"
if sort -n -c stored.times 2>/dev/null; then
  echo "note: this recording happened to be stored in order"
fi
echo "ok: $(wc -l <ordered.times) samples in perf's order"
