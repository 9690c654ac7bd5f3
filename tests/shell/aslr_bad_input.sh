#!/usr/bin/env bash
# perftk aslr on broken input: a clear error naming the offset, exit 1, no
# output file; the output may not be the input.
source "$(dirname "$0")/lib/common.bash"
require_perf
build_workload
perf record -q -e cpu-clock -g -o in.data -- ./workload 100 >/dev/null
# Cut the file inside its data section.
size=$(stat -c %s in.data)
head -c $((size / 2)) in.data >cut.data
set +e
"$PERFTK" aslr -i cut.data -o out.data 2>err.txt
rc=$?
set -e
[ "$rc" -eq 1 ] || fail "exit status $rc for a truncated file"
grep -q 'offset' err.txt || { cat err.txt >&2; fail "the error does not name an offset"; }
[ ! -e out.data ] || fail "an output file was left behind"
ls | has 'out.data.tmp' && fail "a temporary file was left behind"
before=$(md5sum <in.data)
set +e
"$PERFTK" aslr -i in.data -o in.data 2>err.txt
rc=$?
set -e
[ "$rc" -eq 1 ] || fail "exit status $rc when the output is the input"
[ "$(md5sum <in.data)" = "$before" ] || fail "the input was modified"
echo "ok: $(head -1 err.txt)"
