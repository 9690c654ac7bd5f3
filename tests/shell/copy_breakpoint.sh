#!/usr/bin/env bash
# perftk copy keeps a hardware breakpoint recording (mem:ADDR, sample addr).
source "$(dirname "$0")/lib/common.bash"
require_perf
build_workload -no-pie
addr=$(nm workload | awk '$3 == "watched_counter" {print "0x" $1}')
[ -n "$addr" ] || fail "no watched_counter symbol in the workload"
perf record -q -d -e "mem:${addr}:w" -o in.data -- ./workload 50 >/dev/null 2>&1 ||
  skip "breakpoint events are not available here"
[ "$(perf script -i in.data 2>/dev/null | wc -l)" -gt 0 ] || skip "the breakpoint never fired"
check_copy_roundtrip in.data -F +addr
