#!/usr/bin/env bash
# Bytes from files reach the terminal escaped (issue 30, D7): a profile
# line merge-profiles cannot read, a recorded path cs-etm-decode has no file
# for. Each used to be printed raw, ESC and BEL included. And a reversed
# range in an AutoFDO text (1004-1000:5, no code at all) is refused, not
# passed through.
source "$(dirname "$0")/lib/common.bash"
source "$LIB_DIR/checks.bash"
source "$LIB_DIR/safety.bash"
ETM=${PERFTK_ETM_DATA_DIR:-$(dirname "$0")/../data/simpleperf-etm}
[ -r "$ETM/perf_inject.data" ] || skip "no simpleperf ETM data at $ETM"
no_control_bytes() { test -z "$(tr -d -c '\033\007' <"$WORK/err.txt")"; }

{ sed -n 1p "$ETM/perf_inject.data"; printf '\033[31mred\007:1\n'; } >bad.afdo
run "$PERFTK" merge-profiles -q -o out.afdo bad.afdo
check "merge-profiles, a line with ESC and BEL: exit 1 (got $rc)" test "$rc" = 1
check "merge-profiles: the line is quoted escaped ($(last_error))" err_has "got '\\\\x1b\[31mred\\\\x07:1'"
check "merge-profiles: no ESC or BEL byte on stderr" no_control_bytes

sed '2s/.*/1004-1000:5/' "$ETM/perf_inject.data" >reversed.afdo
run "$PERFTK" merge-profiles -q -o out.afdo reversed.afdo
check "merge-profiles, a reversed range: exit 1 (got $rc)" test "$rc" = 1
check "merge-profiles, a reversed range: named with its line ($(last_error))" \
  err_has "reversed.afdo.*1004-1000:5"
check "merge-profiles: no output after an error" test ! -e out.afdo

GEN=${ETM_GEN:-$(dirname "$(dirname "$PERFTK")")/tests/perftk_etm_gen}
[ -x "$GEN" ] || skip "no perftk_etm_gen at $GEN"
dir=$'gen\033[31m\007'
"$GEN" --cpus 1 --trace-mb 0.1 --out "$dir" >/dev/null || fail "perftk_etm_gen failed"
rm "$dir/etm_demo"
run "$PERFTK" cs-etm-decode -i "$dir/perf.data" --format=autofdo -o out.afdo
check "cs-etm-decode without the traced binary: exit 0 (got $rc)" test "$rc" = 0
check "cs-etm-decode: the recorded path is named escaped ($(last_error))" \
  err_has 'no file for .*gen\\x1b\[31m\\x07/etm_demo'
check "cs-etm-decode: no ESC or BEL byte on stderr" no_control_bytes
checks_summary
