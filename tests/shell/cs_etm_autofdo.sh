#!/usr/bin/env bash
# AutoFDO's own converter (create_llvm_prof of Debian autofdo 0.19) eats both
# of perftk's routes on a recording made by perftk_etm_gen, whose etm_demo
# carries symbols and DWARF lines (tests/cs_etm_gen/debug_info.h):
#   - --profiler=text on --format=autofdo, read back from the text profile;
#   - --profiler=perf on the perf.data with 64-entry branch stacks (AutoFDO
#     reads it with quipper), read back with llvm-profdata-16 show.
# Each function's total and head counts must be the ones the generator
# computes from what it executed (autofdo_model.h: every range and branch
# for the text route; the ground truth's branch stacks for the perf route,
# which is all AutoFDO reads of a perf.data), and the profile must have no
# other function. Controls: the same comparison fails on a profile made from
# the stripped binary, and on the other route's counts.
# The text route is checked again on a binary laid out as lld does (code at
# vaddr = file offset + 0x10000), and on a recording with syscalls, whose
# trace runs in a second binary (the kernel image): create_llvm_prof reads
# only the first binary of a text, so --dso etm_demo writes that one. The
# perf route is checked without syscalls only: quipper (AutoFDO's perf.data
# reader) stops reading a branch stack at the first address it cannot map
# (perf_parser.cc, MapBranchStack), here the first kernel entry, which the
# model does not follow.
source "$(dirname "$0")/lib/common.bash"
command -v create_llvm_prof >/dev/null || skip "no create_llvm_prof (Debian: autofdo)"
PROFDATA=$(command -v llvm-profdata-16 || command -v llvm-profdata) ||
  skip "no llvm-profdata (Debian: llvm-16)"
STRIP=$(command -v aarch64-linux-gnu-strip || command -v llvm-strip-16 || command -v llvm-strip) ||
  skip "no strip for aarch64 (Debian: binutils-aarch64-linux-gnu)"
GEN=${ETM_GEN:-$(dirname "$(dirname "$PERFTK")")/tests/perftk_etm_gen}
[ -x "$GEN" ] || skip "no perftk_etm_gen at $GEN"

# generate DIR ARGS...: a recording in DIR, and the counts AutoFDO must
# give in DIR/want.text and DIR/want.perf ("NAME TOTAL HEAD" lines).
generate() {
  local dir=$1
  shift
  "$GEN" --cpus 2 --trace-mb 1 --buffer-kb 32 --switch-every 2000 --expect-itrace i1000il64 \
    --expect-autofdo "$dir.expected" --out "$dir" "$@" >"$dir.gen" || fail "perftk_etm_gen $* failed"
  for route in text perf; do
    awk -v r=$route '$1 == r { print $2, $3, $4 }' "$dir.expected" >"$dir/want.$route"
    [ "$(wc -l <"$dir/want.$route")" -ge 3 ] ||
      fail "the generator expects $(wc -l <"$dir/want.$route") functions ($route, $*)"
  done
}
# "NAME TOTAL HEAD" lines: from a text profile's top-level "name:total:head"
# lines, or from llvm-profdata's "Function: name: total, head, ..." lines.
functions_of_text() { awk -F: '!/^ / && NF == 3 { print $1, $2, $3 }' "$1" | sort; }
functions_of_profdata() {
  "$PROFDATA" show --sample --all-functions "$1" |
    sed -nE 's/^Function: ([^:]+): ([0-9]+), ([0-9]+),.*/\1 \2 \3/p' | sort
}
# Whether the profile's functions and counts are exactly the wanted ones.
same_counts() { [ -s "$1" ] && cmp -s "$1" "$2"; }
differences() { diff "$1" "$2" | grep '^[<>]' | head -4 | tr '\n' ';'; }
# check_text_route DIR [--dso NAME]: create_llvm_prof --profiler=text on
# perftk's --format=autofdo of DIR gives DIR/want.text.
check_text_route() {
  local dir=$1
  shift
  "$PERFTK" cs-etm-decode -q -i "$dir/perf.data" --format=autofdo "$@" -o "$dir.afdo"
  create_llvm_prof --profiler=text --binary="$dir/etm_demo" --profile="$dir.afdo" \
    --format=text --out="$dir.prof" 2>"$dir.err" ||
    fail "create_llvm_prof --profiler=text ($dir): $(tail -1 "$dir.err")"
  functions_of_text "$dir.prof" >"$dir/got.text"
  same_counts "$dir/want.text" "$dir/got.text" ||
    fail "text route ($dir): $(differences "$dir/want.text" "$dir/got.text")"
}

generate gen --syscalls-per-mille 0
check_text_route gen
"$PERFTK" cs-etm-decode -q -i gen/perf.data --itrace=i1000il64 -o inj.data
create_llvm_prof --profiler=perf --binary=gen/etm_demo --profile=inj.data --out=perf.prof \
  2>perf.err || fail "create_llvm_prof --profiler=perf: $(grep -v 'Unknown event type' perf.err | tail -1)"
functions_of_profdata perf.prof >gen/got.perf
same_counts gen/want.perf gen/got.perf || fail "perf route: $(differences gen/want.perf gen/got.perf)"

# With syscalls: the text of etm_demo alone, among two binaries.
generate sys --syscalls-per-mille 100
"$PERFTK" cs-etm-decode -q -i sys/perf.data --format=autofdo -o all.afdo
[ "$(grep -c '^// /' all.afdo)" -eq 2 ] || fail "expected 2 binaries in: $(grep '^// /' all.afdo)"
check_text_route sys --dso etm_demo
[ "$(grep '^// /' sys.afdo)" = "// $PWD/sys/etm_demo" ] || fail "--dso etm_demo wrote: $(grep '^// /' sys.afdo)"

# lld's layout: etm_demo's code at vaddr = file offset + 0x10000 (a second
# PT_LOAD). AutoFDO's text addresses are vaddrs minus the first PT_LOAD's
# (create_llvm_prof adds that back), not file offsets. (AutoFDO 0.19's own
# perf route takes quipper's file offsets and finds nothing here: not
# checked.)
generate lld --syscalls-per-mille 0 --text-vaddr-delta 0x10000
check_text_route lld

# Controls: the comparison rejects a profile of the stripped binary (same
# file name, as the perf route matches binaries by name) and wrong counts.
mkdir stripped
"$STRIP" -o stripped/etm_demo gen/etm_demo
create_llvm_prof --profiler=text --binary=stripped/etm_demo --profile=gen.afdo --format=text \
  --out=stripped.prof 2>/dev/null || true
touch stripped.prof
functions_of_text stripped.prof >got.stripped
same_counts gen/want.text got.stripped && fail "control: the stripped binary's profile passed"
same_counts gen/want.perf gen/got.text && fail "control: the text route passed with the perf route's counts"
echo "ok: create_llvm_prof gives the generator's counts on both routes:" \
  "$(tr '\n' ';' <gen/got.text) / $(tr '\n' ';' <gen/got.perf)"
