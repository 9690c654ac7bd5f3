#!/usr/bin/env bash
# A file system that fills mid-run (issue 15, item 8): on a 256 KB tmpfs,
# jit --buildid-cache=DIR, copy -o and aslr -o exit 1 with the system's
# reason and leave no file or symlink there (directories may stay).
source "$(dirname "$0")/lib/common.bash"
source "$LIB_DIR/checks.bash"
source "$LIB_DIR/safety.bash"
require_perf
mount_small_tmpfs small
record_busy in.data 300
[ "$(stat -c %s in.data)" -gt $((2 * 262144)) ] || fail "in.data is too small to fill 256 KB"

# fills WHAT: the last run failed for want of space and left no file.
fills() {
  check "$1: exit 1 (got $rc)" test "$rc" = 1
  check "$1: the reason ($(last_error))" err_has "No space left on device"
  check "$1: nothing left on the full file system ($(find small ! -type d | wc -l) files)" \
    nothing_but_dirs_in small
  find small -mindepth 1 -delete
}
run "$PERFTK" copy -i in.data -o small/out.data
fills "copy -o FULL/out.data"
run "$PERFTK" aslr -q -i in.data -o small/out.data
fills "aslr -o FULL/out.data"

if command -v node >/dev/null; then
  record_node_functions node.data 500 >/dev/null
  mkdir jd
  run "$PERFTK" jit -q -i node.data -o out.data --jit-dir jd --buildid-cache="$WORK/small/cache"
  fills "jit --buildid-cache=FULL/cache"
  check "jit: no output file" test ! -e out.data
else
  echo "note: node is not installed, jit is not checked"
fi
checks_summary
