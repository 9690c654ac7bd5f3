#!/usr/bin/env bash
# --format=llvm-sample writes a profile from the binary's DWARF, and fills in
# every instruction of each function the trace ran in. One byte of a damaged
# or hostile .debug_info (a subprogram's DW_AT_high_pc size 0x10 ->
# 0x4000000010) made that fill allocate per address of a 256 GiB range
# (issue 30, D2: 16.7 GB of RSS in 49 s). Now a DWARF range must lie in the
# file bytes of one executable segment; one that does not is dropped with a
# warning naming the file and the DIE's .debug_info offset, and the run
# stays small.
source "$(dirname "$0")/lib/common.bash"
source "$LIB_DIR/checks.bash"
source "$LIB_DIR/safety.bash"
GEN=${ETM_GEN:-$(dirname "$(dirname "$PERFTK")")/tests/perftk_etm_gen}
[ -x "$GEN" ] || skip "no perftk_etm_gen at $GEN"
"$GEN" --cpus 1 --trace-mb 0.3 --out gen >/dev/null || fail "perftk_etm_gen failed"
"$PERFTK" cs-etm-decode -q -i gen/perf.data --format=llvm-sample --dso etm_demo -o good.prof
has -E '^leaf_loop:[0-9]+:' good.prof || fail "no leaf_loop in the profile of the clean binary"
grep -vE '^leaf_loop:|^ ' good.prof | has -E '^[a-z_]+:[0-9]+:' ||
  fail "the clean binary's profile has no function but leaf_loop (the last check would mean nothing)"

leaf=$(nm gen/etm_demo | awk '$3 == "leaf_loop" { print $1 }')
python3 "$LIB_DIR/patch_high_pc.py" gen/etm_demo "$leaf" >patched.txt
if asan_build; then cap=unlimited; else cap=$((2 * 1024 * 1024)); fi
run bash -c 'ulimit -v "$1"; shift; exec "$@"' _ "$cap" \
  "$PERFTK" cs-etm-decode -i gen/perf.data --format=llvm-sample --dso etm_demo -o bad.prof
check "a 256 GiB DWARF range: exit 0 within 2 GiB of address space (got $rc: $(last_error))" \
  test "$rc" = 0
range=$(printf '0x%x-0x40000' $((16#$leaf)))
check "the warning names the file, the DIE offset and the range ($(last_error))" \
  err_has "gen/etm_demo: \.debug_info offset 0x[0-9a-f]+: range $range"
check "the function whose range was dropped is not in the profile" \
  bash -c '! grep -qE "^leaf_loop:" bad.prof'
check "the other functions are as in the clean binary's profile" \
  cmp -s <(grep -vE '^leaf_loop:|^ ' good.prof | sort) <(grep -vE '^ ' bad.prof | sort)
checks_summary
