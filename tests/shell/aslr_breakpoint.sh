#!/usr/bin/env bash
# perftk aslr on a breakpoint recording: bp_addr and the event name lose the
# watched address; sample addrs are remapped.
source "$(dirname "$0")/lib/common.bash"
source "$LIB_DIR/aslr.bash"
require_perf
build_workload -no-pie
addr=$(nm workload | awk '$3 == "watched_counter" {print "0x" $1}')
perf record -q -d -e "mem:${addr}:w" -o in.data -- ./workload 50 >/dev/null 2>&1 ||
  skip "breakpoint events are not available here"
check_aslr in.data
"$PERFTK" dump -i out.data --header-only | has "config1=" && fail "bp_addr is still set"
if perf script -i out.data 2>/dev/null | has -i "${addr#0x}"; then
  fail "perf script of the output still shows the watched address"
fi
echo "ok: breakpoint address hidden"
