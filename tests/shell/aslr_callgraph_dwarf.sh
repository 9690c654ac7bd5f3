#!/usr/bin/env bash
# perftk aslr on dwarf call graphs (registers and user stacks removed,
# samples kept): perf report unchanged, no original address left.
source "$(dirname "$0")/lib/common.bash"
source "$LIB_DIR/aslr.bash"
require_perf
build_workload -fPIE -pie
perf record -q -e cpu-clock --call-graph dwarf,4096 -o in.data -- ./workload 300 >/dev/null
# The user stacks are removed, so user call graphs cannot survive (yet):
# compare the self histogram; kernel chains and every sample stay.
ASLR_REPORT_OPTIONS="--no-children -g none" check_aslr in.data
