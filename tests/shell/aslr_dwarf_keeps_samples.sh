#!/usr/bin/env bash
# perftk aslr keeps every sample of a --call-graph dwarf recording (upstream
# perf drops them all): user stacks and registers go, ips and kernel chains stay.
source "$(dirname "$0")/lib/common.bash"
require_perf
build_workload -fPIE -pie
perf record -q -e cpu-clock --call-graph dwarf,4096 -o in.data -- ./workload 200 >/dev/null
"$PERFTK" aslr -q -i in.data -o out.data
in_samples=$("$PERFTK" dump -i in.data | grep -c ' type=SAMPLE ')
out_samples=$("$PERFTK" dump -i out.data | grep -c ' type=SAMPLE ')
[ "$in_samples" -gt 0 ] || fail "no samples recorded"
[ "$in_samples" -eq "$out_samples" ] || fail "$in_samples samples in, $out_samples out"
"$PERFTK" dump -i out.data --header-only | grep 'attr ' | has -E 'REGS_USER|STACK_USER' &&
  fail "the output still asks for registers or stacks"
perf report -i out.data --stdio --no-children -g none --sort sym 2>/dev/null | has leaf_multiply ||
  fail "no sample in leaf_multiply"
echo "ok: $out_samples samples kept"
