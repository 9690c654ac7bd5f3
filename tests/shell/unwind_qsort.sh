#!/usr/bin/env bash
# perftk unwind on a program built without frame pointers whose hot code is
# a qsort callback several calls deep (lib/qsort_chain.c): perf report
# (children, no children, -g none, -g folded) and perf script on the output
# equal perf's own unwinding of the input; the output is at most 5% of an
# 8 KB-stack input.
source "$(dirname "$0")/lib/common.bash"
source "$LIB_DIR/unwind.bash"
require_perf
cc -O2 -fomit-frame-pointer -g -o prog "$LIB_DIR/qsort_chain.c"
perf record -q -e cpu-clock --call-graph dwarf -o in.data -- ./prog 100 >/dev/null
"$PERFTK" dump -i in.data --header-only | has 'sample_stack_user=8192' || fail "not an 8 KB-stack recording"
check_unwind in.data
unwound_fully_at_least 95
at_most_percent_of out.data in.data 5
report_of out.data --no-children -g folded | has 'compare;.*qsort.*;sort_once;level3;level2;level1;main' ||
  fail "the callback's chain through qsort up to main is not in the output"

# Pipe in and pipe out: the same call graphs.
perf record -q -e cpu-clock --call-graph dwarf -o - -- ./prog 30 2>/dev/null >pipe.data
"$PERFTK" unwind -q -i - -o pipe_out.data <pipe.data
"$PERFTK" unwind -q -i pipe.data -o - | perf report -i - --stdio --no-children -g folded \
  2>/dev/null | grep -v '^#' | grep -v '^$' >stdout.report
report_of pipe.data --no-inline --no-children -g folded >pipe_in.report
report_of pipe_out.data --no-children -g folded >pipe_out.report
same_listing "pipe input" pipe_in.report pipe_out.report
same_listing "pipe output" pipe_in.report stdout.report
echo "ok: pipe input and output"
