#!/usr/bin/env bash
# perftk aslr reads a pipe recording from stdin and writes a pipe to stdout.
source "$(dirname "$0")/lib/common.bash"
source "$LIB_DIR/aslr.bash"
require_perf
build_workload -fPIE -pie
perf record -q -e cpu-clock -g -o - -- ./workload 300 2>/dev/null >in.pipe.data
# perf report ignores --children on a pipe: compare without.
ASLR_REPORT_OPTIONS="--no-children" check_aslr in.pipe.data
perf record -q -e cpu-clock -g -o - -- ./workload 300 2>/dev/null |
  "$PERFTK" aslr -q -i - -o - >stream.data
"$PERFTK" dump -i stream.data --header-only | has 'layout=pipe' || fail "stdout is not a pipe"
aslr_report stream.data --sort dso,sym | has leaf_multiply || fail "the streamed output lost its symbols"
echo "ok: stdin to stdout"
