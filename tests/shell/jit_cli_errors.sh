#!/usr/bin/env bash
# perftk jit refuses what it cannot do right, with exit status 1, a message
# that says what to do, no output file and no .so left behind: a recording
# made without -k 1, a jitdump with a broken record size, and a build-id
# cache that cannot be written.
source "$(dirname "$0")/lib/common.bash"
source "$LIB_DIR/jit_node.bash"
require_perf
require_node

BENCH_MS=100 write_bench_js
perf record -q -e cpu-clock -o noclock.data node --perf-prof bench.js >/dev/null 2>&1 ||
  skip "perf record of node failed"
mkdir out
set +e
"$PERFTK" jit -i noclock.data -o out.data --jit-dir out 2>err.txt
rc=$?
set -e
[ $rc -eq 1 ] || fail "exit status $rc without -k 1 (expected 1)"
grep -q 'perf record -k 1' err.txt || fail "the error does not say how to record: $(cat err.txt)"
[ ! -e out.data ] || fail "an output file was written"
[ -z "$(ls out)" ] || fail ".so files were left: $(ls out | head -3)"

# The same process recorded correctly; a cache directory that is a file.
rm -f jit-*.dump
BENCH_MS=100 record_node good.data
dump=$(ls jit-*.dump)
touch not-a-dir
set +e
"$PERFTK" jit -i good.data -o out.data --jit-dir out --buildid-cache="$WORK/not-a-dir" 2>err.txt
rc=$?
set -e
[ $rc -eq 1 ] || fail "exit status $rc with an unwritable build-id cache (expected 1)"
grep -q "build-id cache: cannot create directory $WORK/not-a-dir" err.txt ||
  fail "the error does not name the cache directory: $(cat err.txt)"
[ ! -e out.data ] || fail "an output file was written"
[ -z "$(ls out)" ] || fail ".so files were left: $(ls out | head -3)"
HOME= PERF_BUILDID_DIR= "$PERFTK" jit -i good.data -o out.data --buildid-cache 2>err.txt && fail "no HOME: accepted"
grep -q 'no cache directory' err.txt || fail "no HOME: $(cat err.txt)"

# Then its dump's third record broken.
python3 - "$dump" <<'PY'
import struct, sys
path = sys.argv[1]
b = bytearray(open(path, 'rb').read())
off = struct.unpack_from('<I', b, 8)[0]
for _ in range(2):
    off += struct.unpack_from('<I', b, off + 4)[0]
struct.pack_into('<I', b, off + 4, 8)
open(path, 'wb').write(b)
PY
set +e
"$PERFTK" jit -i good.data -o out.data --jit-dir out 2>err.txt
rc=$?
set -e
[ $rc -eq 1 ] || fail "exit status $rc on a broken dump (expected 1)"
grep -q "$dump: offset 0x[0-9a-f]*: .*size 8 is smaller than the record prefix" err.txt ||
  fail "the error does not name the dump, offset and field: $(cat err.txt)"
[ ! -e out.data ] || fail "an output file was written"
[ -z "$(ls out)" ] || fail ".so files were left: $(ls out | head -3)"
echo "ok"
