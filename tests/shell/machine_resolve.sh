#!/usr/bin/env bash
# The machine model, replayed from a real system-wide recording, puts every
# sample's ip in the same dso as perf script does (user, kernel, vdso, anon).
source "$(dirname "$0")/lib/common.bash"
require_perf
build_workload
# With Node.js, JIT code runs too: executable memory without a file, which
# perf names after the process's perf map (/tmp/perf-<pid>.map).
jit=()
if command -v node >/dev/null; then
  jit=(node -e 'function f(n) { return n < 2 ? n : f(n - 1) + f(n - 2); }
                const t = Date.now(); while (Date.now() - t < 300) f(20);')
fi
perf record -q -e cpu-clock -a -o in.data -- sh -c '"$@" & ./workload 300 2; wait' sh "${jit[@]}" \
  >/dev/null 2>&1 || skip "system-wide recording is not allowed here"
"$PERFTK" dump -i in.data --resolve | grep ' type=SAMPLE ' |
  sed -e 's/.* dso=\(.*\) dso_addr=.*/\1/' -e 's/.* dso=\(.*\)$/\1/' >perftk.dsos
perf script -i in.data -F ip,dso 2>/dev/null |
  sed -e 's/^ *[0-9a-f]* (\(.*\))$/\1/' >perf.dsos
[ "$(wc -l <perf.dsos)" -gt 100 ] || fail "too few samples"
same_listing "dso of each sample" perf.dsos perftk.dsos
grep -qx '\[kernel.kallsyms\]' perftk.dsos || fail "no kernel sample was resolved"
grep -q '/workload$' perftk.dsos || fail "no sample in the workload was resolved"
if [ ${#jit[@]} -gt 0 ]; then
  grep -q '^/tmp/perf-[0-9]*\.map$' perftk.dsos || fail "no sample in JIT code (a perf map) was resolved"
fi
echo "ok: $(wc -l <perftk.dsos) samples in $(sort -u perftk.dsos | wc -l) dsos, as perf says"
