#!/usr/bin/env bash
# perftk aslr on a system-wide recording with context switches: many
# processes, kernel samples, SWITCH_CPU_WIDE records.
source "$(dirname "$0")/lib/common.bash"
source "$LIB_DIR/aslr.bash"
require_perf
build_workload
perf record -q -e cpu-clock -a -g --switch-events -o in.data -- ./workload 200 1 >/dev/null 2>&1 ||
  skip "system-wide recording is not allowed here"
check_aslr in.data
