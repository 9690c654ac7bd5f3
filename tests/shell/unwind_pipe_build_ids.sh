#!/usr/bin/env bash
# unwind finds binaries in the build-id cache by the ids a pipe recording
# carries in HEADER_BUILD_ID records, as it does by a file's BUILD_ID
# feature (issue 30, D6: it ignored them, and with the program moved away
# 80 of 81 samples of such a pipe had no call chain).
# A dwarf pipe recording gets its ids from `perftk copy --build-ids -o -`;
# the program is then moved away and kept only in a build-id cache. Its
# unwound call chains must be those unwound with the program in place.
source "$(dirname "$0")/lib/common.bash"
require_perf
build_workload
perf record -q -e cpu-clock --call-graph dwarf,4096 -o - -- ./workload 50 1 2>/dev/null \
  >dwarf.pipe || skip "perf record --call-graph dwarf -o - failed"
"$PERFTK" copy -q --build-ids -i dwarf.pipe -o - >ids.pipe
perf script -i ids.pipe --show-mmap-events 2>/dev/null >/dev/null ||
  fail "perf script cannot read copy's pipe"
# A build-id cache of the test's own: perf buildid-cache writes $HOME/.debug.
export HOME=$WORK/home
unset PERF_BUILDID_DIR
mkdir home
perf buildid-cache -a workload 2>/dev/null || fail "perf buildid-cache -a failed"
[ -n "$(find home/.debug -name elf -print -quit)" ] || fail "perf buildid-cache -a cached nothing"

chains() { perf script -i "$1" -F ip,sym 2>/dev/null; }
"$PERFTK" unwind -q -i ids.pipe -o in_place.data
chains in_place.data >in_place.txt
grep -q middle_sum in_place.txt || fail "no middle_sum frame with the program in place"

mv workload workload.moved
"$PERFTK" unwind -q -i ids.pipe -o moved.data
mv workload.moved workload
chains moved.data >moved.txt
same_listing "call chains with the program only in the build-id cache" in_place.txt moved.txt
echo "ok: $(grep -c middle_sum moved.txt) middle_sum frames, as with the program in place"
