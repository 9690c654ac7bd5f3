#!/usr/bin/env bash
# A jit --buildid-cache run that fails (its output is a full device) leaves
# nothing in the cache: no file, no link, no folder (issue 26, D8: the files
# and links went, but every folder stayed, 55 to 4,664 of them, since they
# were removed oldest first, each while it still held the next). The same
# run into a good output fills the cache, so the failed one had made it.
source "$(dirname "$0")/lib/common.bash"
source "$LIB_DIR/checks.bash"
source "$LIB_DIR/safety.bash"
source "$LIB_DIR/jit_node.bash"
require_perf
require_node
mkdir dev
make_devices dev
record_node perf.data
for merge in "" --merge; do
  mkdir jd cache
  run "$PERFTK" jit -q -i perf.data -o dev/full --jit-dir jd --buildid-cache="$WORK/cache" $merge
  check "jit $merge -o a full device: exit 1 (got $rc: $(last_error))" test "$rc" = 1
  check "jit $merge: the cache is left empty ($(find cache -mindepth 1 | wc -l) entries)" \
    test -z "$(find cache -mindepth 1 -print -quit)"
  check "jit $merge: no .so is left in the jit dir" test -z "$(find jd -mindepth 1 -print -quit)"
  rm -rf jd cache
  mkdir jd cache
  run "$PERFTK" jit -q -i perf.data -o out.data --jit-dir jd --buildid-cache="$WORK/cache" $merge
  check "jit $merge -o a file: exit 0, the cache has folders ($(find cache -type d | wc -l))" \
    test "$rc" = 0 -a "$(find cache -mindepth 1 -type d | wc -l)" -gt 2
  rm -rf jd cache out.data
done
checks_summary
