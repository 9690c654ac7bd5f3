#!/usr/bin/env bash
# Every error names the file, and bytes from files are printed escaped
# (issue 26, D10, D11): an empty ARCH and a malformed EVENT_DESC section
# were reported as "arch '' is not supported" and "event_desc feature
# section is malformed" with no file named; a path read from an @LIST was
# echoed raw, terminal escape sequences included.
source "$(dirname "$0")/lib/common.bash"
source "$LIB_DIR/checks.bash"
source "$LIB_DIR/safety.bash"
require_perf
build_workload
perf record -q -e cpu-clock --call-graph dwarf,1024 -o in.data -- ./workload 50 1 >/dev/null 2>&1 ||
  skip "perf record --call-graph dwarf failed here"

cp in.data no_arch.data
python3 "$LIB_DIR/patch_feature.py" no_arch.data 6 4 zero  # HEADER_ARCH: an empty string
run "$PERFTK" unwind -q -i no_arch.data -o out.data
check "unwind, empty ARCH: exit 1 (got $rc)" test "$rc" = 1
check "unwind, empty ARCH: the message names the file ($(last_error))" \
  err_has "^perftk: no_arch.data: .*arch ''"

cp in.data bad_desc.data
python3 "$LIB_DIR/patch_feature.py" bad_desc.data 12 4 ffff0000  # EVENT_DESC: attr size 65535
for tool in unwind aslr; do
  run "$PERFTK" $tool -q -i bad_desc.data -o out.data
  check "$tool, malformed EVENT_DESC: exit 1 (got $rc)" test "$rc" = 1
  check "$tool, malformed EVENT_DESC: the message names the file ($(last_error))" \
    err_has "^perftk: bad_desc.data: .*event_desc"
  check "$tool, malformed EVENT_DESC: no output" test ! -e out.data -a -z "$(temps_in .)"
done

printf 'in\033[31mred\033[0m.data\n' >list
run "$PERFTK" cs-etm-decode -q -i @list --format=autofdo -o out.txt
check "an @LIST path with escape sequences: exit 1 (got $rc)" test "$rc" = 1
check "an @LIST path with escape sequences: printed escaped ($(last_error))" \
  err_has 'in\\x1b\[31mred\\x1b\[0m\.data: cannot open'
check "an @LIST path with escape sequences: no ESC byte on stderr" \
  test -z "$(tr -d -c '\033' <err.txt)"
checks_summary
