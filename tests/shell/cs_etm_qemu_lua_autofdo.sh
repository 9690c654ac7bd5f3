#!/usr/bin/env bash
# AutoFDO end to end on a real program with the tools of Debian 12: the
# vendored Lua interpreter, built by clang for aarch64 with DWARF 4 (Debian's
# create_llvm_prof 0.19 reads nothing newer), runs a training script under
# qemu-aarch64; perftk_qemu_etm makes the CoreSight perf.data and its ground
# truth; perftk cs-etm-decode --format=autofdo --dso lua; create_llvm_prof
# --profiler=text turns it into an LLVM text sample profile, whose junk
# names scripts/fix_llvm_prof.py repairs; clang -fprofile-sample-use
# rebuilds Lua. Checked:
#   - the repaired profile of perftk's decode and the one of the ground
#     truth overlap (llvm-profdata-16 overlap --sample) by >= 99%;
#   - clang takes the profile without a word;
#   - the rebuilt Lua prints what Lua must print on another input than the
#     training one, and runs (counted from qemu's log, deterministic) fewer
#     instructions and at least 10% fewer taken branches than the plain build.
# The same with perftk's own LLVM sample profile (--format=llvm-sample,
# written from lua's DWARF line and inline tables, inlined code in nested
# profiles): clang takes it without a word; on the functions' own bodies
# (lib/own_bodies.py: create_llvm_prof's repaired profile lost many inlined
# calls) it overlaps create_llvm_prof's by >= 99%; its rebuild passes with
# fewer instructions and 10% fewer taken branches. --format=llvm-sample
# without --dso is a usage error.
# The perf route: perftk's perf.data with branch stacks sampled every 63
# taken branches (--every-taken: each taken range in exactly one stack), read
# by create_llvm_prof --profiler=perf: the profile overlaps the truth's by
# >= 99%, --jobs 2 writes the same file, and its rebuild passes with fewer
# instructions and 10% fewer taken branches. (create_llvm_prof 0.19 reads
# perf.data addresses as file offsets plus the first PT_LOAD's vaddr: Lua is
# linked with --no-rosegment so that text lies in that segment, as GNU ld
# lays it out; with lld's separate read-only segment every address would be
# 64 KiB off.)
# Controls: the profile of lua's addresses moved by 16 instructions (a
# profile of a shifted binary) overlaps the truth's, and (own bodies)
# perftk's llvm-sample profile, by less than 90%.
# With an ASan build of perftk the three rebuilds and their runs (clang and
# qemu's work, not perftk's) are left out: CI's release run does them.
source "$(dirname "$0")/lib/common.bash"
source "$LIB_DIR/qemu_etm.bash" # cached_build
PREFIX=/usr/aarch64-linux-gnu
command -v qemu-aarch64 >/dev/null || skip "no qemu-aarch64 (Debian: qemu-user)"
command -v clang >/dev/null || skip "no clang"
command -v ld.lld >/dev/null || skip "no ld.lld (Debian: lld)"
command -v create_llvm_prof >/dev/null || skip "no create_llvm_prof (Debian: autofdo)"
command -v llvm-profdata-16 >/dev/null || skip "no llvm-profdata-16 (Debian: llvm-16)"
command -v llvm-dwarfdump-16 >/dev/null || skip "no llvm-dwarfdump-16 (Debian: llvm-16)"
command -v python3 >/dev/null || skip "no python3"
[ -e "$PREFIX/lib/libc.so.6" ] || skip "no $PREFIX/lib/libc.so.6 (Debian: libc6-dev-arm64-cross)"
QEMU_ETM=${QEMU_ETM:-$(dirname "$(dirname "$PERFTK")")/tests/perftk_qemu_etm}
[ -x "$QEMU_ETM" ] || skip "no perftk_qemu_etm at $QEMU_ETM"
SRC=${PERFTK_SOURCE_DIR:?set by ctest}
SCRIPT=$SRC/tests/shell/lib/qemu_workload.lua
FIX=$SRC/scripts/fix_llvm_prof.py

# build OUT [clang options]: Lua for aarch64, non-PIE (guest pcs are link
# addresses), with a fixed string-hash seed (one run is every run).
build() {
  local out=$1
  shift
  clang --target=aarch64-linux-gnu -fuse-ld=lld -Wl,--no-rosegment -std=gnu99 -O2 -g -gdwarf-4 \
    -fdebug-info-for-profiling -no-pie -DLUA_USE_POSIX '-Dluai_makeseed(L)=0' "$@" \
    -o "$out" "$SRC/third_party/lua/src/onelua.c" -lm
}
# run BINARY ARG: runs the script under qemu; the recording in BINARY.ARG.data,
# the truth in BINARY.ARG.truth, the output in BINARY.ARG.out, the
# recorder's counts in BINARY.ARG.stats.
run() {
  local binary=$1 arg=$2
  env -i "$(command -v qemu-aarch64)" -L "$PREFIX" -d in_asm,exec,nochain -strace -D /dev/stderr \
    "./$binary" "$SCRIPT" "$arg" 2>&1 >"$binary.$arg.out" |
    "$QEMU_ETM" --blocks --program "./$binary" --prefix "$PREFIX" --out "$binary.$arg.data" \
      --truth-autofdo "$binary.$arg.truth" >"$binary.$arg.stats" ||
    fail "qemu-aarch64 | perftk_qemu_etm ($binary $arg) failed"
}
# expect_output BINARY ARG FIB: Lua's own check, the script's output line.
expect_output() {
  printf '%s\t30428895\tTHE,QUICK,BROWN,FOX,JUMPS,OVER,THE,LAZY,DOG\tfalse\tboom\t1.414\n' "$3" >want.out
  cmp -s want.out "$1.$2.out" || fail "$1 printed: $(cat "$1.$2.out")"
}
instructions() { sed -nE 's/.* ([0-9]+) instructions.*/\1/p' "$1"; }
taken() { sed -nE 's/.*waypoints \(([0-9]+) taken.*/\1/p' "$1"; }
# profile AFDO OUT [PROFILER]: create_llvm_prof on an AutoFDO text of lua (or
# with PROFILER perf, a perf.data), repaired.
profile() {
  create_llvm_prof --profiler="${3:-text}" --binary=lua --profile="$1" --format=text --out="$2.raw" \
    2>"$2.err" || fail "create_llvm_prof on $1: $(tail -1 "$2.err")"
  python3 "$FIX" "$2.raw" "$2" names >"$2.fix" || fail "fix_llvm_prof.py on $2.raw failed"
}
similarity() {
  llvm-profdata-16 overlap --sample "$1" "$2" |
    sed -nE 's/.*Whole program profile similarity: ([0-9.]+)%.*/\1/p'
}
# faster NAME PROFILE WHAT: rebuilds Lua as NAME with PROFILE; clang must take
# it without a word, NAME must pass Lua's check on fib(19) and run fewer
# instructions and 10% fewer taken branches than the plain build. Under an
# ASan build of perftk these steps (clang and qemu, not perftk) are left to
# the release run, which CI runs too.
faster() {
  local name=$1 profile=$2 what=$3
  if asan_build; then
    echo "$what: the rebuild is checked by the release build's run"
    return
  fi
  if [ ! -e lua.19.stats ]; then
    run lua 19
    expect_output lua 19 4181
  fi
  build "$name" -fprofile-sample-use="$profile" 2>clang.err || fail "clang on $what failed"
  [ ! -s clang.err ] || fail "clang on $what: $(head -3 clang.err)"
  run "$name" 19
  expect_output "$name" 19 4181
  local before_i after_i before_t after_t
  before_i=$(instructions lua.19.stats) after_i=$(instructions "$name.19.stats")
  before_t=$(taken lua.19.stats) after_t=$(taken "$name.19.stats")
  echo "$what: fib(19): $before_i -> $after_i instructions, $before_t -> $after_t taken branches"
  [ "$after_i" -lt "$before_i" ] || fail "the build on $what runs $after_i instructions, not fewer"
  [ $((after_t * 10)) -lt $((before_t * 9)) ] ||
    fail "the build on $what takes $after_t branches: not 10% fewer than $before_t"
  echo "ok: the build on $what passes and runs faster"
}

cached_build "$SRC/third_party/lua" lua build lua || fail "cannot build Lua with clang"
# The DWARF subprogram names of lua: the names a profile may hold.
llvm-dwarfdump-16 --debug-info lua |
  awk '$2 ~ /^DW_TAG_/ { sp = ($2 == "DW_TAG_subprogram") }
       sp && $1 == "DW_AT_name" { n = $0; sub(/^[^"]*"/, "", n); sub(/"\)$/, "", n); print n }' |
  sort -u >names
[ "$(wc -l <names)" -gt 500 ] || fail "only $(wc -l <names) DWARF subprogram names in lua"

run lua 18
expect_output lua 18 2584
"$PERFTK" cs-etm-decode -q -i lua.18.data --format=autofdo --dso lua -o got.afdo
profile got.afdo got.prof
profile lua.18.truth truth.prof
echo "create_llvm_prof + fix_llvm_prof.py: $(cat got.prof.fix)"
functions=$(grep -c '^[A-Za-z_]' got.prof || true)
[ "$functions" -gt 50 ] || fail "the profile has $functions functions"
has -E '^luaV_execute:[0-9]{6,}:' got.prof || fail "the profile has no hot luaV_execute"
got=$(similarity got.prof truth.prof)
awk -v s="$got" 'BEGIN { exit !(s >= 99) }' || fail "overlap with the truth's profile: $got%"
echo "ok: $functions functions, overlap with the truth's profile $got%"

faster lua.afdo got.prof "create_llvm_prof's profile"

expect_exit 2 "$PERFTK" cs-etm-decode -q -i lua.18.data --format=llvm-sample -o /dev/null
has -F -- "--dso" cmd.err || fail "--format=llvm-sample without --dso: $(cat cmd.err)"
"$PERFTK" cs-etm-decode -q -i lua.18.data --format=llvm-sample --dso lua -o ours.prof
has -E '^luaV_execute:[0-9]{6,}:' ours.prof || fail "perftk's profile has no hot luaV_execute"
python3 "$LIB_DIR/own_bodies.py" ours.prof ours.own
python3 "$LIB_DIR/own_bodies.py" got.prof got.own
ours=$(similarity ours.own got.own)
awk -v s="$ours" 'BEGIN { exit !(s >= 99) }' ||
  fail "--format=llvm-sample overlaps create_llvm_prof's profile (own bodies) by $ours%"
echo "--format=llvm-sample: overlap with create_llvm_prof's (own bodies) $ours%"
faster lua.ours ours.prof "perftk's llvm-sample profile"

"$PERFTK" cs-etm-decode -q -i lua.18.data --itrace=il64 --every-taken 63 -o lbr.data
"$PERFTK" cs-etm-decode -q --jobs 2 -i lua.18.data --itrace=il64 --every-taken 63 -o lbr.j2.data
cmp -s lbr.data lbr.j2.data || fail "--every-taken 63: --jobs 2 wrote another perf.data"
profile lbr.data perf.prof perf
echo "create_llvm_prof --profiler=perf + fix_llvm_prof.py: $(cat perf.prof.fix)"
has -E '^luaV_execute:[0-9]{6,}:' perf.prof || fail "the perf route's profile has no hot luaV_execute"
perf_route=$(similarity perf.prof truth.prof)
awk -v s="$perf_route" 'BEGIN { exit !(s >= 99) }' ||
  fail "the perf route's profile overlaps the truth's by $perf_route%"
# For the record: the same stacks sampled every 1000 instructions.
"$PERFTK" cs-etm-decode -q -i lua.18.data --itrace=i1000il64 -o lbr.i.data
profile lbr.i.data perf.i.prof perf
echo "perf route: overlap with the truth's profile $perf_route% (sampled every 1000" \
  "instructions instead: $(similarity perf.i.prof truth.prof)%)"
faster lua.perf perf.prof "the perf route's profile"

# Control: lua's addresses (ranges and branches) 16 instructions later.
python3 - got.afdo shifted.afdo <<'EOF'
import sys
moved = lambda a: '%x' % (int(a, 16) + 0x40)
out, ours = [], True
for line in open(sys.argv[1]).read().split('\n'):
    ours = ours and not line.startswith('//')
    if ours and ':' in line:
        span, count = line.split(':')
        sep = '->' if '->' in span else '-'
        first, last = span.split(sep)
        line = f'{moved(first)}{sep}{moved(last)}:{count}'
    out.append(line)
open(sys.argv[2], 'w').write('\n'.join(out))
EOF
cmp -s got.afdo shifted.afdo && fail "control: nothing was shifted"
profile shifted.afdo shifted.prof
control=$(similarity shifted.prof truth.prof)
awk -v s="$control" 'BEGIN { exit !(s < 90) }' || fail "control: a shifted profile overlaps by $control%"
python3 "$LIB_DIR/own_bodies.py" shifted.prof shifted.own
control_ours=$(similarity ours.own shifted.own)
awk -v s="$control_ours" 'BEGIN { exit !(s < 90) }' ||
  fail "control: a shifted profile overlaps perftk's llvm-sample one by $control_ours%"
echo "ok: control: the shifted profile overlaps the truth's by $control%, perftk's llvm-sample by $control_ours%"
