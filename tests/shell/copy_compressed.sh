#!/usr/bin/env bash
# perftk copy reads a zstd-compressed recording (perf record -z) and writes it
# uncompressed with the same content.
source "$(dirname "$0")/lib/common.bash"
require_perf
build_workload
perf record -q -z -e cpu-clock -g -o in.data -- ./workload 300 >/dev/null
"$PERFTK" dump -i in.data --header-only | has 'feature=compressed' ||
  skip "this perf wrote no compressed records"
check_copy_roundtrip in.data
if "$PERFTK" dump -i copy.data | has 'type=COMPRESSED'; then
  fail "the copy still holds compressed records"
fi
