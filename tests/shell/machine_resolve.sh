#!/usr/bin/env bash
# The machine model, replayed from a real system-wide recording, puts every
# sample's ip in the same dso as perf script does (user, kernel, vdso, anon).
source "$(dirname "$0")/lib/common.bash"
require_perf
build_workload
perf record -q -e cpu-clock -a -o in.data -- ./workload 300 2 >/dev/null 2>&1 ||
  skip "system-wide recording is not allowed here"
"$PERFTK" dump -i in.data --resolve | grep ' type=SAMPLE ' |
  sed -e 's/.* dso=\(.*\) dso_addr=.*/\1/' -e 's/.* dso=\(.*\)$/\1/' >perftk.dsos
perf script -i in.data -F ip,dso 2>/dev/null |
  sed -e 's/^ *[0-9a-f]* (\(.*\))$/\1/' >perf.dsos
[ "$(wc -l <perf.dsos)" -gt 100 ] || fail "too few samples"
same_listing "dso of each sample" perf.dsos perftk.dsos
grep -qx '\[kernel.kallsyms\]' perftk.dsos || fail "no kernel sample was resolved"
grep -q '/workload$' perftk.dsos || fail "no sample in the workload was resolved"
echo "ok: $(wc -l <perftk.dsos) samples in $(sort -u perftk.dsos | wc -l) dsos, as perf says"
