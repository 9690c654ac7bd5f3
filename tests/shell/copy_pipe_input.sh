#!/usr/bin/env bash
# perftk copy reads a pipe-layout recording, from a file and from stdin.
source "$(dirname "$0")/lib/common.bash"
require_perf
build_workload
perf record -q -e cpu-clock -g -o - -- ./workload 300 >in.pipe.data 2>/dev/null
"$PERFTK" dump -i in.pipe.data --header-only | has 'layout=pipe' || fail "not a pipe recording"
check_copy_roundtrip in.pipe.data
# stdin to stdout, as in `perf record -o - | perftk copy -i - -o - | perf script -i -`
script_of in.pipe.data >expected.script
cat in.pipe.data | "$PERFTK" copy -i - -o - | perf script -i - --show-mmap-events \
  --show-task-events 2>/dev/null >stream.script
same_listing "perf script (stdin to stdout)" expected.script stream.script
