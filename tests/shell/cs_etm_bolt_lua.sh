#!/usr/bin/env bash
# From CoreSight trace to a faster binary with BOLT (issue 23, step 4), on
# the vendored Lua interpreter cross-built for aarch64 with relocations
# (lib/qemu_lua.bash). A training run under qemu-aarch64 becomes a
# CoreSight perf.data and its exact ground truth (perftk_qemu_etm); perftk
# decodes it two ways for BOLT 16:
#   - --format=bolt, read by perf2bolt --pa (it equals the truth's text);
#   - --itrace=i1000il64, a perf.data of samples with 64-entry branch
#     stacks, read by perf2bolt -p (which runs the real perf script);
# llvm-bolt-16 optimizes lua with each profile. Measured under qemu, one
# instruction at a time: the taken branches lua's own code executes in a
# run of the workload (deterministic; libc and ld.so are not counted, BOLT
# does not touch them). Checked:
#   - each optimized lua prints what Lua must print;
#   - with perftk's profiles its taken branches drop by at least 10%;
#   - the sampled branch stacks give a layout within 1% of the one the
#     ground truth's profile gives;
#   - perf2bolt finds the profile matches the code (few mismatching traces);
#   - control: the same profile one instruction later (a profile of another
#     build) is reported as mismatching and its gain vanishes;
#   - llvm-bolt-heatmap-16 reads perftk's perf.data (one more consumer): in
#     a run of the optimized lua, traced and decoded as the training run,
#     the hot code sits in BOLT's new .text (at least 95% of the samples,
#     under 1% in .text.cold), and 90% of the samples fall in fewer bytes
#     than in the training run.
source "$(dirname "$0")/lib/common.bash"
source "$LIB_DIR/qemu_lua.bash"
command -v qemu-aarch64 >/dev/null || skip "no qemu-aarch64 (Debian: qemu-user)"
command -v aarch64-linux-gnu-gcc >/dev/null || skip "no aarch64-linux-gnu-gcc (Debian: gcc-aarch64-linux-gnu)"
[ -e "$QEMU_PREFIX/lib/libc.so.6" ] || skip "no $QEMU_PREFIX/lib/libc.so.6 (Debian: libc6-dev-arm64-cross)"
command -v perl >/dev/null || skip "no perl"
BOLT_BIN=${BOLT_BIN:-/usr/lib/llvm-16/bin}
# perf2bolt is llvm-bolt under another name, and acts as perf2bolt only when
# called so: Debian's perf2bolt-16 (a link to it) reads the profile and then
# writes an optimized binary where the fdata should go.
[ -x "$BOLT_BIN/perf2bolt" ] && [ -x "$BOLT_BIN/llvm-bolt" ] || skip "no BOLT in $BOLT_BIN (Debian: bolt-16)"
QEMU_ETM=${QEMU_ETM:-$(dirname "$(dirname "$PERFTK")")/tests/perftk_qemu_etm}
[ -x "$QEMU_ETM" ] || skip "no perftk_qemu_etm at $QEMU_ETM"
SCRIPT=$PERFTK_SOURCE_DIR/tests/shell/lib/qemu_workload.lua
printf '2584\t30428895\tTHE,QUICK,BROWN,FOX,JUMPS,OVER,THE,LAZY,DOG\tfalse\tboom\t1.414\n' >want.out

cached_build "$PERFTK_SOURCE_DIR/third_party/lua" lua build_lua lua aarch64-linux-gnu-gcc || fail "cannot build Lua"

mkdir truth
env -i "$(command -v qemu-aarch64)" -L "$QEMU_PREFIX" -d in_asm,exec,nochain -strace -D /dev/stderr \
  ./lua "$SCRIPT" 18 2>&1 >train.out |
  "$QEMU_ETM" --blocks --program ./lua --prefix "$QEMU_PREFIX" --buffer-kb 64 --out train.data \
    --truth-bolt-dir truth >train.stats || fail "qemu-aarch64 | perftk_qemu_etm failed"
cmp -s want.out train.out || fail "lua printed: $(cat train.out)"
echo "trained: $(cat train.stats)"

"$PERFTK" cs-etm-decode -q -i train.data --format=bolt --dso lua -o train.pa
cmp -s truth/lua.bolt train.pa || fail "--format=bolt differs from the truth's BOLT text"

# `optimize NAME PROFILE_ARGS...`: perf2bolt with the arguments, then
# llvm-bolt-16 with the fdata: lua.NAME. Prints perf2bolt's share of traces
# that mismatch the code (percent, 0 when it prints none).
optimize() {
  local name=$1
  shift
  HOME=$WORK "$BOLT_BIN/perf2bolt" "$@" -o "$name.fdata" ./lua >"$name.perf2bolt" 2>&1 ||
    fail "perf2bolt $*: $(grep -i error "$name.perf2bolt" | head -2)"
  [ -s "$name.fdata" ] || fail "perf2bolt $* wrote no profile"
  "$BOLT_BIN/llvm-bolt" ./lua -o "lua.$name" -data "$name.fdata" -reorder-blocks=ext-tsp \
    -reorder-functions=hfsort -split-functions -split-all-cold -dyno-stats >"$name.bolt" 2>&1 ||
    fail "llvm-bolt with $name.fdata: $(grep -i error "$name.bolt" | head -2)"
  sed -nE 's/.*traces mismatching disassembled function contents: [0-9]+ \(([0-9.]+)%\).*/\1/p' \
    "$name.perf2bolt" | grep . || echo 0
}

# `heatmap NAME PERF_DATA BINARY`: llvm-bolt-heatmap's view of the samples;
# writes NAME.heat: the percentage of samples in .text, the KB of the
# hottest code that holds 90% of them, the percentage in .text.cold (0 when
# there is none). Fails unless it read many branch stacks, nearly all valid.
heatmap() {
  local name=$1 data=$2 binary=$3
  HOME=$WORK "$BOLT_BIN/llvm-bolt-heatmap" -p "$data" -o "$name.heatmap" "$binary" \
    >"$name.heatmap.log" 2>&1 || fail "llvm-bolt-heatmap on $data: $(tail -2 "$name.heatmap.log")"
  local read invalid
  read=$(sed -nE 's/^HEATMAP: read ([0-9]+) LBR samples.*/\1/p' "$name.heatmap.log")
  invalid=$(sed -nE 's/^HEATMAP: invalid traces: ([0-9]+).*/\1/p' "$name.heatmap.log")
  [ "${read:-0}" -gt 100000 ] && [ -n "$invalid" ] && [ $((invalid * 50)) -lt "$read" ] ||
    fail "llvm-bolt-heatmap read ${read:-no} branch stack entries, ${invalid:-?} invalid"
  {
    awk -F', ' '$1 == ".text" { t = $4 } $1 == ".text.cold" { c = $4 } END { print t + 0, c + 0 }' \
      "$name.heatmap-section-hotness.csv" >"$name.sections"
    read -r text cold <"$name.sections"
    printf '%s %s %s\n' "$text" \
      "$(awk -F', ' 'NR > 1 && $3 >= 90 { print $2; exit }' "$name.heatmap.csv")" "$cold"
  } >"$name.heat"
}

# `measure BINARY`: "TAKEN EXECUTED" of lua's code in a run of the workload;
# the run must print what Lua prints.
measure() {
  local counts
  counts=$(taken_branches "$1" "$SCRIPT" 18) || fail "cannot run $1 under qemu"
  cmp -s want.out "$1.out" || fail "$1 printed: $(cat "$1.out")"
  echo "$counts"
}

read -r base base_executed < <(measure ./lua)
[ "$base" -gt 100000 ] || fail "the original lua took only $base branches"
echo "original: $base taken branches, $base_executed instructions in lua"

mismatch=$(optimize pa --pa -p train.pa)
read -r pa pa_executed < <(measure ./lua.pa)
echo "BOLT with --format=bolt (the truth's text): $pa taken branches," \
  "$pa_executed instructions; perf2bolt: $mismatch% of traces mismatch"
[ $((pa * 10)) -le $((base * 9)) ] ||
  fail "BOLT with perftk's --format=bolt: $pa taken branches, not 10% below $base"
awk -v m="$mismatch" 'BEGIN { exit !(m < 5) }' || fail "perf2bolt: $mismatch% of perftk's traces mismatch"

if command -v perf >/dev/null; then
  "$PERFTK" cs-etm-decode -q -i train.data --itrace=i1000il64 -o il64.data
  optimize il64 -p il64.data >/dev/null
  has "matched build-id and file name" il64.perf2bolt || fail "perf2bolt -p did not match lua's build id"
  read -r il64 il64_executed < <(measure ./lua.il64)
  echo "BOLT with --itrace=i1000il64: $il64 taken branches, $il64_executed instructions"
  [ $((il64 * 10)) -le $((base * 9)) ] ||
    fail "BOLT with perftk's branch stacks: $il64 taken branches, not 10% below $base"
  diff=$((il64 > pa ? il64 - pa : pa - il64))
  [ $((diff * 100)) -le "$pa" ] ||
    fail "branch stacks: $il64 taken branches, the truth's profile $pa: more than 1% apart"

  # Where the hot code sits, before and after BOLT: llvm-bolt-heatmap-16
  # reads perftk's perf.data of the training run and of a run of the
  # optimized lua (traced as the original was).
  if [ -x "$BOLT_BIN/llvm-bolt-heatmap" ]; then
    heatmap before il64.data ./lua
    mkdir after
    env -i "$(command -v qemu-aarch64)" -L "$QEMU_PREFIX" -d in_asm,exec,nochain -strace -D /dev/stderr \
      ./lua.pa "$SCRIPT" 18 2>&1 >after.out |
      "$QEMU_ETM" --blocks --program ./lua.pa --prefix "$QEMU_PREFIX" --buffer-kb 64 \
        --out after/perf.data >after.stats || fail "qemu-aarch64 | perftk_qemu_etm (lua.pa) failed"
    cmp -s want.out after.out || fail "lua.pa printed: $(cat after.out)"
    "$PERFTK" cs-etm-decode -q -i after/perf.data --itrace=i1000il64 -o after.il64
    heatmap after after.il64 ./lua.pa
    read -r before_text before_kb _ <before.heat
    read -r after_text after_kb after_cold <after.heat
    echo "heatmap: .text holds $before_text% of the samples, 90% of them in $before_kb KB;" \
      "after BOLT $after_text% in .text, 90% in $after_kb KB, $after_cold% in .text.cold"
    awk -v a="$after_text" -v c="$after_cold" -v k="$after_kb" -v bk="$before_kb" \
      'BEGIN { exit !(a >= 95 && c < 1 && k < bk) }' ||
      fail "after BOLT the hot code is not packed into .text (heatmap: $(tr '\n' ' ' <after.heat))"
  else
    echo "note: no llvm-bolt-heatmap in $BOLT_BIN: the heatmap is not checked"
  fi
else
  echo "note: no perf (Debian: linux-perf): perf2bolt -p and the heatmap are not checked"
fi

# Control: the profile one instruction later, as if of another build.
perl -ne 'printf "%s %x %x%s\n", $1, hex($2) + 4, $3 eq "0" ? 0 : hex($3) + 4, $4
            if /^([FB]) (?:[0-9a-f]+:)?([0-9a-f]+) ([0-9a-f]+)(.*)$/' train.pa >shifted.pa
[ "$(wc -l <shifted.pa)" -eq "$(wc -l <train.pa)" ] || fail "control: the shifted profile is malformed"
shifted_mismatch=$(optimize shifted --pa -p shifted.pa)
read -r shifted _ < <(measure ./lua.shifted)
echo "control, profile shifted by 4: $shifted taken branches; $shifted_mismatch% of traces mismatch"
awk -v m="$shifted_mismatch" 'BEGIN { exit !(m >= 5) }' ||
  fail "control: perf2bolt finds only $shifted_mismatch% of a shifted profile mismatching"
[ $(((base - shifted) * 2)) -lt $((base - pa)) ] ||
  fail "control: a shifted profile still gives $shifted taken branches (original $base, perftk $pa)"
echo "ok: BOLT with perftk's profiles: $base -> $pa taken branches; the control fails"
