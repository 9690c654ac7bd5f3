#!/usr/bin/env bash
# perftk copy keeps a --call-graph dwarf recording (user regs and stacks).
source "$(dirname "$0")/lib/common.bash"
require_perf
build_workload
perf record -q -e cpu-clock --call-graph dwarf,4096 -o in.data -- ./workload 150 >/dev/null
check_copy_roundtrip in.data
