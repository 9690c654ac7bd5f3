#!/usr/bin/env bash
# Empty work is not silent (issue 32): unwind on a recording without stack
# copies and jit without a jitdump say how to record what they need, as a
# warning (also with -q), and still exit 0; real work gets no such hint.
source "$(dirname "$0")/lib/common.bash"
source "$LIB_DIR/checks.bash"
require_perf
build_workload

# runs_ok CMD...: CMD exits 0; its stderr is in hint.err.
runs_ok() { "$@" 2>hint.err >/dev/null; }

perf record -q -e cpu-clock -o fp.data -- ./workload 100 >/dev/null 2>&1
check "unwind without stack copies exits 0" runs_ok "$PERFTK" unwind -q -i fp.data -o u.data
check "... and says to record with --call-graph dwarf ($(head -c 200 hint.err))" \
  has -F 'no sample has a stack copy, so nothing was unwound: record with `perf record --call-graph dwarf`' hint.err
perf record -q -e cpu-clock --call-graph dwarf -o dwarf.data -- ./workload 100 >/dev/null 2>&1
check "unwind of a dwarf recording exits 0" runs_ok "$PERFTK" unwind -q -i dwarf.data -o u.data
check "... with no hint ($(head -c 200 hint.err))" test ! -s hint.err

check "jit without a jitdump exits 0" runs_ok "$PERFTK" jit -q -i fp.data -o j.data
check "... and says how to record one ($(head -c 200 hint.err))" \
  has -F 'no jitdump found (the recording maps no jit-<pid>.dump), so nothing was injected: run the runtime with its jitdump option' hint.err

if command -v node >/dev/null; then
  source "$LIB_DIR/jit_node.bash"
  write_bench_js
  BENCH_MS=300 perf record -q -k 1 -e cpu-clock -o plain.data node bench.js >/dev/null 2>&1 ||
    skip "perf record of node failed"
  pid=$(perf script -i plain.data -F comm,pid 2>/dev/null | awk '$1 == "node" { print $2 }' | sort -n | sed -n 1p)
  check "jit of node run without --perf-prof exits 0" runs_ok "$PERFTK" jit -i plain.data -o j.data
  check "... and names node's pid $pid ($(head -c 300 hint.err))" \
    has -E "no jitdump found for pid $pid( \(and [0-9]+ more process\(es\)\))?, which ran code from anonymous memory" hint.err
  BENCH_MS=300 record_node prof.data
  check "jit of node run with --perf-prof exits 0" runs_ok "$PERFTK" jit -q -i prof.data -o j.data
  check "... with no hint ($(head -c 200 hint.err))" test ! -s hint.err
else
  echo "note: node is not installed: the per-pid jit hint is not checked"
fi
checks_summary
