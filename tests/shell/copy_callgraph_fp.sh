#!/usr/bin/env bash
# perftk copy keeps a frame-pointer call-graph recording (-g) exactly.
source "$(dirname "$0")/lib/common.bash"
require_perf
build_workload
perf record -q -e cpu-clock -g -o in.data -- ./workload 300 >/dev/null
check_copy_roundtrip in.data
