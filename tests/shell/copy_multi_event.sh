#!/usr/bin/env bash
# perftk copy keeps a recording of two events (ids tell their samples apart).
source "$(dirname "$0")/lib/common.bash"
require_perf
build_workload
perf record -q -e cpu-clock,task-clock -o in.data -- ./workload 200 1 >/dev/null
check_copy_roundtrip in.data
