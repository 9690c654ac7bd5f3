#!/usr/bin/env bash
# perftk copy keeps a system-wide recording (-a): many processes, the kernel.
source "$(dirname "$0")/lib/common.bash"
require_perf
build_workload
perf record -q -e cpu-clock -a -g -o in.data -- ./workload 200 1 >/dev/null 2>&1 ||
  skip "system-wide recording is not allowed here"
check_copy_roundtrip in.data
