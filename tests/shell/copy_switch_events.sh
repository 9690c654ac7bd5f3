#!/usr/bin/env bash
# perftk copy keeps context-switch records (--switch-events).
source "$(dirname "$0")/lib/common.bash"
require_perf
build_workload
perf record -q -e cpu-clock --switch-events -o in.data -- ./workload 200 1 >/dev/null
script_of in.data --show-switch-events >expected.switch
grep -q PERF_RECORD_SWITCH expected.switch || fail "no switch records were recorded"
check_copy_roundtrip in.data --show-switch-events
