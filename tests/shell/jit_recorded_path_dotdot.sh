#!/usr/bin/env bash
# A jitdump path with '..' in a recording is refused (issue 30, D5): jit
# writes the jitted .so files beside the dump and names --buildid-cache
# entries after them, and `jit --buildid-cache=DIR` joined DIR with such a
# path as it was, putting entries outside DIR. A Node.js pipe recording
# whose jitdump MMAP2 is rewritten to '/..' + its path (the same file) must
# give a warning naming it, exit 0, and no file anywhere: no .so beside the
# dump, no cache folder.
source "$(dirname "$0")/lib/common.bash"
source "$LIB_DIR/jit_node.bash"
require_perf
require_node
write_bench_js
BENCH_MS=300 perf record -q -k 1 -e cpu-clock -o - node --perf-prof bench.js 2>node.err \
  >in.pipe || skip "perf record of node failed: $(tail -1 node.err)"
ls jit-*.dump >/dev/null 2>&1 || fail "node --perf-prof wrote no jit-<pid>.dump"
n=$(python3 "$LIB_DIR/prefix_jitdump_mmap.py" in.pipe dotdot.pipe /..) ||
  fail "no jitdump MMAP2 in the recording"
mkdir cache
"$PERFTK" jit -i dotdot.pipe -o out.data --buildid-cache="$WORK/cache/debug" 2>jit.err ||
  fail "perftk jit failed: $(tail -2 jit.err)"
has -F "'..' component: refused" jit.err || fail "no warning for the '..' path: $(cat jit.err)"
# (With one '/..', the old entries landed in $WORK/cache/<the dump's
# folder>/..., outside DIR but inside this test's folder.)
made=$(find "$WORK" \( -name 'jitted-*.so' -o -path "$WORK/cache/*" \) -printf '%P ')
[ -z "$made" ] || fail "files written for a refused jitdump path: $made"
echo "ok: $n jitdump MMAP2 refused, nothing written"
