#!/usr/bin/env bash
# -o naming another input of the run is refused before any work (issue 15,
# item 4): jit -o the jitdump it reads, cs-etm-decode -o the traced binary
# under --symfs, jit -o one of the .so files it generates. Each exits 1 with
# a message naming the path, the output role and the input's role, and
# leaves that file as it was.
source "$(dirname "$0")/lib/common.bash"
source "$LIB_DIR/checks.bash"
source "$LIB_DIR/safety.bash"
require_perf

# names_roles PATH ROLE_PATTERN: besides PATH, the message names the output
# role and the input's (ROLE_PATTERN).
names_roles() {
  err_without "$1" | has -iE 'output|-o' && err_without "$1" | has -iE "$2"
}
# refused WHAT PATH ROLE_PATTERN SHA: the last run refused -o PATH.
refused() {
  check "$1: exit 1 (got $rc)" test "$rc" = 1
  check "$1: message names $2 ($(last_error))" err_has "$2"
  check "$1: message names the output and the input's role ($3)" names_roles "$2" "$3"
  check "$1: $2 unchanged" test "$(sha_of "$2")" = "$4"
  check "$1: no temporary file" no_temps_in "$(dirname "$2")"
}

copy_etm_recording
sha=$(sha_of etm/etm_test_loop)
run "$PERFTK" cs-etm-decode -q -i etm/perf_etm.data --symfs etm -o etm/etm_test_loop
refused "cs-etm-decode -o the traced binary" etm/etm_test_loop 'binary|symfs|traced|code|ELF' "$sha"

command -v node >/dev/null || { echo "note: node is not installed, jit is not checked"; checks_summary; exit; }
dump=$(record_node_functions perf.data 50)
mkdir jd
sha=$(sha_of "$dump")
cp "$dump" dump.orig
run "$PERFTK" jit -q -i perf.data -o "$dump" --jit-dir jd
refused "jit -o its jitdump" "$dump" 'jitdump|dump' "$sha"
cp dump.orig "$dump"  # when it was overwritten, for the next case

"$PERFTK" jit -q -i perf.data -o first.data --jit-dir jd || fail "perftk jit failed"
so=$(find "$WORK/jd" -name 'jitted-*.so' | sort | sed -n 1p)
[ -n "$so" ] || fail "perftk jit wrote no jitted-*.so"
sha=$(sha_of "$so")
run "$PERFTK" jit -q -i perf.data -o "$so" --jit-dir jd
refused "jit -o a .so it generates" "$so" 'generat|jitted|\.so|ELF' "$sha"
checks_summary
