#!/usr/bin/env bash
# perftk aslr on flat samples of a PIE program: perf report unchanged, no original address left.
source "$(dirname "$0")/lib/common.bash"
source "$LIB_DIR/aslr.bash"
require_perf
build_workload -fPIE -pie
perf record -q -e cpu-clock -o in.data -- ./workload 300 >/dev/null
check_aslr in.data
