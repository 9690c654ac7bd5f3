#!/usr/bin/env bash
# Opening an input never blocks (issue 15, item 3): a FIFO where a file is
# read -- uprobe-offset's binary (with names and --list), the debug file
# found under --debug-dir, jit's jit-PID.dump -- is refused within seconds
# with exit 1 and a message naming the path and that it is not a regular
# file (timeout 20: 124 is a hang). jit then leaves no output, no temporary
# and no .so file.
source "$(dirname "$0")/lib/common.bash"
source "$LIB_DIR/checks.bash"
source "$LIB_DIR/safety.bash"
RUN_TIMEOUT=20
not_regular_message() { err_has "$1" && err_has "not a regular file"; }
# refused WHAT PATH: the last run ended with 1 and the message.
refused() {
  check "$1: exit 1 (got $rc; 124 is a hang)" test "$rc" = 1
  check "$1: message names $2 and says it is not a regular file ($(last_error))" \
    not_regular_message "$2"
}

mkfifo in.fifo
run "$PERFTK" uprobe-offset in.fifo malloc
refused "uprobe-offset FIFO malloc" in.fifo
run "$PERFTK" uprobe-offset --list in.fifo
refused "uprobe-offset --list FIFO" in.fifo

# A stripped program whose debug file (by build id) is a FIFO; leaf_multiply
# is static, so only the debug file can resolve it.
build_workload
id=$(readelf -n workload | awk '/Build ID/ { print $3 }')
[ -n "$id" ] || skip "the compiler wrote no build id"
strip -o stripped workload
mkdir -p "debug/.build-id/${id:0:2}"
mkfifo "debug/.build-id/${id:0:2}/${id:2}.debug"
run "$PERFTK" uprobe-offset --debug-dir debug stripped leaf_multiply
refused "uprobe-offset with a FIFO as the debug file" ".build-id/${id:0:2}/${id:2}.debug"

if command -v node >/dev/null; then
  require_perf
  dump=$(record_node_functions perf.data 50)
  rm "$dump"
  mkfifo "$dump"
  mkdir jd
  run "$PERFTK" jit -q -i perf.data -o out.data --jit-dir jd
  refused "jit with a FIFO as jit-PID.dump" "$dump"
  check "jit: no output file" test ! -e out.data
  check "jit: no temporary file ($(temps_in .))" no_temps_in .
  check "jit: no .so file" nothing_but_dirs_in jd
else
  echo "note: node is not installed, jit is not checked"
fi
checks_summary
