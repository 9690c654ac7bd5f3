#!/usr/bin/env bash
# perftk aslr on a --call-graph dwarf recording (lib/qsort_chain.c) unwinds
# the stacks before it removes them: perf report --children (call graphs included) and the folded
# call graphs equal perf's own unwinding of the input (--no-inline, see
# lib/unwind.bash), and the leak scan finds no original address. With
# --no-unwind the user call graphs are gone, as before.
source "$(dirname "$0")/lib/common.bash"
source "$LIB_DIR/aslr.bash"
source "$LIB_DIR/unwind.bash"
require_perf
cc -O2 -fomit-frame-pointer -g -fPIE -pie -o prog "$LIB_DIR/qsort_chain.c"
perf record -q -e cpu-clock --call-graph dwarf -o in.data -- ./prog 60 >/dev/null
ASLR_REPORT_OPTIONS="--children --no-inline" check_aslr in.data
has 'unwound before removing the stacks: .* unwound fully' aslr.log ||
  fail "the aslr summary does not count the unwound samples"
for mode in "--children -g folded" "--no-children -g folded"; do
  # shellcheck disable=SC2086
  aslr_report in.data --no-inline $mode >in.folded
  # shellcheck disable=SC2086
  aslr_report out.data $mode >out.folded
  same_report_but_unknowns "perf report $mode" in.folded out.folded
done
has 'compare;.*qsort.*;sort_once;level3;level2;level1;main' out.folded || fail "no chain from compare to main"
event_desc_matches_attrs out.data

"$PERFTK" aslr -q -i in.data -o plain.data --no-unwind
aslr_report plain.data --no-children -g folded | has 'sort_once;level3' &&
  fail "--no-unwind still made user call chains"
echo "ok: user call graphs kept through aslr, gone with --no-unwind"
