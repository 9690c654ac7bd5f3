#!/usr/bin/env bash
# perftk copy keeps tracepoint samples with raw data and the tracing_data feature.
source "$(dirname "$0")/lib/common.bash"
require_perf
build_workload
perf record -q -e sched:sched_switch -a -o in.data -- ./workload 100 1 >/dev/null 2>&1 ||
  skip "sched:sched_switch cannot be recorded here (no tracefs?)"
check_copy_roundtrip in.data
