#!/usr/bin/env bash
# Call graphs through jitted code: frame pointers (-g) and DWARF unwinding
# with V8's unwinding info (--call-graph dwarf, --perf-prof-unwinding-info).
# Every sample's call chain must match perf inject --jit's output (--merge:
# jit_merge_node.sh).
source "$(dirname "$0")/lib/common.bash"
source "$LIB_DIR/jit_node.bash"
require_perf
require_node

check_mode() {
  local name=$1
  shift
  record_and_inject "$name" "$@"
  samples_of perf.jit.data >expected.samples
  samples_of ours.data >ours.samples
  grep -q 'JS:' expected.samples || fail "$name: no JS frames in the oracle's call chains"
  same_listing "$name: perf script call chains" expected.samples ours.samples
  if [ "$name" = fp ]; then
    children_report_of perf.jit.data >expected.report
    children_report_of ours.data >ours.report
    same_listing "$name: perf report --children" expected.report ours.report
  fi
  echo "ok $name: $(grep -c . expected.samples) script lines"
  cd "$WORK"
}

BENCH_MS=500 check_mode fp -g
# perf unwinds each DWARF sample for ~0.1 s here (thousands of jitted files):
# a low sample rate keeps this check to seconds.
BENCH_MS=800 check_mode dwarf -F 100 --call-graph dwarf,8192 -- --perf-prof-unwinding-info
