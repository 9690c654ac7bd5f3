#!/usr/bin/env bash
# perftk aslr on a tracepoint recording: raw payloads and the kernel symbol
# table in the tracing data go; the samples and event names stay.
source "$(dirname "$0")/lib/common.bash"
source "$LIB_DIR/aslr.bash"
require_perf
build_workload
perf record -q -e sched:sched_switch -o in.data -- ./workload 100 4 >/dev/null 2>&1 ||
  skip "sched:sched_switch cannot be recorded here (no tracefs?)"
check_aslr in.data
perf script -i out.data 2>/dev/null | has 'sched:sched_switch' || fail "the event name is gone"
