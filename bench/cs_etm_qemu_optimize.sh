#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# Benchmark (not a test): from a CoreSight trace of a real program's run to
# a faster binary (issue 23, steps 4, 5 and 7), for PROGRAM=lua (the
# vendored Lua interpreter running tests/shell/lib/qemu_workload.lua with
# fib(N)), PROGRAM=zlib (zlib 1.3.1's self-check, test/example.c) or
# PROGRAM=zstd (the zstd 1.5.6 CLI compressing the first KB kilobytes of
# its own lib/compress/zstd_compress.c at level LEVEL, then decompressing
# the frame: two runs, traced and measured as one workload).
# BOLT: the program built by gcc -O2, non-PIE with relocations, runs under
# qemu-aarch64; perftk_qemu_etm --blocks turns the run into a CoreSight
# perf.data and its ground truth (AutoFDO and BOLT texts). llvm-bolt-16
# optimizes the program with three profiles: perftk's --format=bolt
# (perf2bolt --pa), perftk's --itrace=i1000il64 branch stacks (perf2bolt
# -p, needs perf), and the ground truth's text.
# AutoFDO: the program built by clang -O2 (lld, DWARF 4,
# -fdebug-info-for-profiling) is traced the same way and rebuilt with
# -fprofile-sample-use on perftk's --format=llvm-sample and on the ground
# truth's sample profile (create_llvm_prof on the truth's AutoFDO text,
# repaired by scripts/fix_llvm_prof.py, as cs_etm_qemu_lua_autofdo.sh
# does). Printed: how the profiles compare, then for each binary the same
# workload as the training run, run under qemu one instruction at a time:
# the taken branches and instructions executed in the program's own code
# (libc and ld.so, which neither changes, are not counted), the change
# against the plain build of the same compiler, and whether the program's
# own check passed (Lua's output line for fib(N); example's "OK"s; zstd:
# the frame passes zstd -t, untraced, and decompresses to the input).
# zstd's two runs are two recordings: perftk decodes them together (-i A
# -i B) into its BOLT, AutoFDO and LLVM sample profiles, and the truth's
# BOLT and AutoFDO texts of the two runs are added up by perftk
# merge-profiles (what -i A -i B must equal); the il64 samples go through
# perf2bolt one recording at a time, added up by BOLT's merge-fdata.
#
#   bench/cs_etm_qemu_optimize.sh                # Lua, N=24: 31-36 M instructions a run, ~12 min
#   N=20 bench/cs_etm_qemu_optimize.sh           # (qemu -singlestep: ~2 us an instruction)
#   PROGRAM=zlib bench/cs_etm_qemu_optimize.sh   # example: 1.6 M instructions a run, ~1 min
#   PROGRAM=zstd bench/cs_etm_qemu_optimize.sh   # KB=32 LEVEL=9: 5.2-5.3 M instructions a run, ~6 min
# The binaries' names differ in length, and so does Lua's arg[0]: runs of
# two binaries built alike differ by a few instructions.
# Env: PERFTK (binary), QEMU_ETM (recorder; default next to PERFTK's build),
# BOLT_BIN (BOLT 16's tools), KEEP=1 keeps the work directory.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${BUILD:-$here/../build}
PERFTK=${PERFTK:-$build/src/perftk}
QEMU_ETM=${QEMU_ETM:-$(dirname "$(dirname "$PERFTK")")/tests/perftk_qemu_etm}
# perf2bolt by that name: Debian's perf2bolt-16 link does not act as one.
BOLT_BIN=${BOLT_BIN:-/usr/lib/llvm-16/bin}
PROGRAM=${PROGRAM:-lua}
N=${N:-24} KB=${KB:-32} LEVEL=${LEVEL:-9}
for bin in "$PERFTK" "$QEMU_ETM" "$BOLT_BIN/perf2bolt" "$BOLT_BIN/llvm-bolt"; do
  [ -x "$bin" ] || { echo "missing $bin (ninja -C $build perftk perftk_qemu_etm; bolt-16)" >&2; exit 1; }
done
for tool in qemu-aarch64 aarch64-linux-gnu-gcc perl clang ld.lld create_llvm_prof llvm-profdata-16 \
  llvm-dwarfdump-16 python3; do
  command -v "$tool" >/dev/null || { echo "missing $tool (scripts/setup.sh installs it)" >&2; exit 1; }
done
export PERFTK_SOURCE_DIR=$here/..
LIB=$PERFTK_SOURCE_DIR/tests/shell/lib
fail() { echo "FAIL: $*" >&2; exit 1; }
# shellcheck source=../tests/shell/lib/qemu_lua.bash
source "$LIB/qemu_lua.bash"
# shellcheck source=../tests/shell/lib/qemu_zlib.bash
source "$LIB/qemu_zlib.bash"
# shellcheck source=../tests/shell/lib/qemu_zstd.bash
source "$LIB/qemu_zstd.bash"
work=$(mktemp -d "${TMPDIR:-/tmp}/perftk-etm-optimize-bench.XXXXXX")
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$work"' EXIT
cd "$work"

# The program: its binary's name, the command that builds it (OUT
# COMPILER...), the workload's arguments, and what a passing run prints.
case $PROGRAM in
  lua)
    prog=lua build_program=build_lua args=("$LIB/qemu_workload.lua" "$N")
    awk -v n="$N" 'BEGIN { a = 0; b = 1; for (i = 0; i < n; i++) { t = a + b; a = b; b = t }
      printf "%d\t30428895\tTHE,QUICK,BROWN,FOX,JUMPS,OVER,THE,LAZY,DOG\tfalse\tboom\t1.414\n", a }' >want.out
    workload="qemu_workload.lua, fib($N)"
    ;;
  zlib)
    prog=example build_program=build_zlib_example args=(foo.gz)
    zlib_example_want want.out
    workload="zlib's test/example.c"
    ;;
  zstd)
    prog=zstd build_program=build_zstd args=()
    zstd_input input "$KB" || fail "no $KB KB of input"
    workload="zstd -$LEVEL, $KB KB, and zstd -d"
    ;;
  *) fail "PROGRAM=$PROGRAM: lua, zlib or zstd" ;;
esac
CLANG=(clang --target=aarch64-linux-gnu -fuse-ld=lld -gdwarf-4 -fdebug-info-for-profiling)

# `train NAME BINARY`: traces the workload of ./BINARY, which must pass its
# check: its runs' names in runs (lib/qemu_etm.bash: RUN/perf.data, the
# truth in RUN.truth and RUN.bolt/); their truths added up in NAME.truth
# and NAME.bolt/BINARY.bolt.
train() {
  local run
  if [ "$PROGRAM" = zstd ]; then
    runs=("$1-c" "$1-d")
    qemu_etm_trace "$1-c" blocks "$2" -q "-$LEVEL" input -o "$1.zst" </dev/null | sed "s/^/training /"
    qemu_etm_trace "$1-d" blocks "$2" -q -d "$1.zst" -o "$1.back" </dev/null | sed "s/^/training /"
    for run in "${runs[@]}"; do
      [ ! -s "$run.out" ] || fail "$2 -q ($run) printed: $(head -3 "$run.out")"
    done
    zstd_check "$2" input "$1.zst" "$1.back" || fail "zstd's check of $2"
    mkdir "$1.bolt"
    "$PERFTK" merge-profiles -q -o "$1.truth" "${runs[@]/%/.truth}"
    "$PERFTK" merge-profiles -q -o "$1.bolt/$2.bolt" "${runs[@]/%/.bolt/$2.bolt}"
  else
    runs=("$1")
    qemu_etm_trace "$1" blocks "$2" "${args[@]}" | sed "s/^/training /"
    cmp -s want.out "$1.out" || fail "$2 printed: $(head -3 "$1.out")"
  fi
  recordings=()
  for run in "${runs[@]}"; do recordings+=(-i "$run/perf.data"); done
}

# `measure BINARY`: prints "TAKEN EXECUTED CHECK" of the workload of
# ./BINARY run one instruction at a time (taken_branches), its runs added
# up; CHECK ok or FAILED.
measure() {
  local taken executed check=ok
  if [ "$PROGRAM" = zstd ]; then
    local t1 e1 t2 e2
    rm -f "$1.zst" "$1.back"
    read -r t1 e1 < <(taken_branches "./$1" -q "-$LEVEL" input -o "$1.zst" </dev/null)
    [ ! -s "$1.out" ] || check=FAILED
    read -r t2 e2 < <(taken_branches "./$1" -q -d "$1.zst" -o "$1.back" </dev/null)
    [ ! -s "$1.out" ] || check=FAILED
    zstd_check "$1" input "$1.zst" "$1.back" || check=FAILED
    taken=$((t1 + t2)) executed=$((e1 + e2))
  else
    read -r taken executed < <(taken_branches "./$1" "${args[@]}")
    cmp -s want.out "./$1.out" || check=FAILED
  fi
  echo "$taken $executed $check"
}

# `sample_profile AFDO OUT`: create_llvm_prof on an AutoFDO text of
# $prog.clang, repaired with the binary's DWARF subprogram names.
sample_profile() {
  create_llvm_prof --profiler=text --binary="$prog.clang" --profile="$1" --format=text \
    --out="$2.raw" 2>"$2.err" || fail "create_llvm_prof on $1: $(tail -1 "$2.err")"
  python3 "$PERFTK_SOURCE_DIR/scripts/fix_llvm_prof.py" "$2.raw" "$2" names >"$2.fix"
}
similarity() {
  llvm-profdata-16 overlap --sample "$1" "$2" |
    sed -nE 's/.*Whole program profile similarity: ([0-9.]+)%.*/\1/p'
}

# BOLT.
"$build_program" "$prog" aarch64-linux-gnu-gcc || fail "cannot build $prog with gcc"
train train "$prog"
"$PERFTK" cs-etm-decode -q "${recordings[@]}" --format=bolt --dso "$prog" -o perftk.pa
echo "--format=bolt equals the truth's text: $(cmp -s perftk.pa "train.bolt/$prog.bolt" && echo yes || echo NO)"
bolted=(perftk truth)
if command -v perf >/dev/null; then
  for run in "${runs[@]}"; do
    "$PERFTK" cs-etm-decode -q -i "$run/perf.data" --itrace=i1000il64 -o "$run.il64.data"
  done
  bolted+=(il64)
else
  echo "note: no perf (Debian: linux-perf): no BOLT with --itrace=i1000il64"
fi
for name in "${bolted[@]}"; do
  case $name in
    perftk) profile=(--pa -p perftk.pa) ;;
    truth) profile=(--pa -p "train.bolt/$prog.bolt") ;;
  esac
  start=$(seconds)
  if [ "$name" = il64 ]; then
    fdatas=()
    for run in "${runs[@]}"; do
      HOME=$work "$BOLT_BIN/perf2bolt" -p "$run.il64.data" -o "$run.il64.fdata" "./$prog" \
        >>"$name.perf2bolt" 2>&1 || fail "perf2bolt -p $run.il64.data: $(tail -2 "$name.perf2bolt")"
      fdatas+=("$run.il64.fdata")
    done
    if [ "${#fdatas[@]}" -eq 1 ]; then
      mv "${fdatas[0]}" "$name.fdata"
    else
      "$BOLT_BIN/merge-fdata" -o "$name.fdata" "${fdatas[@]}" 2>>"$name.perf2bolt" ||
        fail "merge-fdata ${fdatas[*]}: $(tail -2 "$name.perf2bolt")"
    fi
  else
    HOME=$work "$BOLT_BIN/perf2bolt" "${profile[@]}" -o "$name.fdata" "./$prog" >"$name.perf2bolt" 2>&1 ||
      fail "perf2bolt ${profile[*]}: $(tail -2 "$name.perf2bolt")"
  fi
  "$BOLT_BIN/llvm-bolt" "./$prog" -o "$prog.$name" -data "$name.fdata" -reorder-blocks=ext-tsp \
    -reorder-functions=hfsort -split-functions -split-all-cold -dyno-stats >"$name.bolt" 2>&1 ||
    fail "llvm-bolt with $name.fdata: $(tail -2 "$name.bolt")"
  echo "BOLT with $name: perf2bolt + llvm-bolt in $(elapsed "$start") s;" \
    "$(grep -o 'traces mismatching.*' "$name.perf2bolt" | paste -sd ';' | grep . || echo 'no mismatching traces')"
done

# AutoFDO.
"$build_program" "$prog.clang" "${CLANG[@]}" || fail "cannot build $prog with clang"
llvm-dwarfdump-16 --debug-info "$prog.clang" |
  awk '$2 ~ /^DW_TAG_/ { sp = ($2 == "DW_TAG_subprogram") }
       sp && $1 == "DW_AT_name" { n = $0; sub(/^[^"]*"/, "", n); sub(/"\)$/, "", n); print n }' |
  sort -u >names
train ctrain "$prog.clang"
"$PERFTK" cs-etm-decode -q "${recordings[@]}" --format=autofdo -o ctrain.afdo
echo "--format=autofdo equals the truth's text: $(cmp -s ctrain.afdo ctrain.truth && echo yes || echo NO)"
"$PERFTK" cs-etm-decode -q "${recordings[@]}" --format=llvm-sample --dso "$prog.clang" -o perftk.prof
sample_profile ctrain.truth truth.prof
echo "ground truth's sample profile: create_llvm_prof + fix_llvm_prof.py: $(cat truth.prof.fix)"
python3 "$LIB/own_bodies.py" perftk.prof perftk.own
python3 "$LIB/own_bodies.py" truth.prof truth.own
echo "overlap of perftk's --format=llvm-sample with the truth's profile:" \
  "$(similarity perftk.prof truth.prof)% whole, $(similarity perftk.own truth.own)% own bodies"
for name in perftk truth; do
  "$build_program" "$prog.clang-$name" "${CLANG[@]}" "-fprofile-sample-use=$name.prof" 2>"$name.clang" ||
    fail "clang -fprofile-sample-use=$name.prof: $(head -3 "$name.clang")"
  [ ! -s "$name.clang" ] || echo "note: clang on $name.prof: $(head -1 "$name.clang")"
done

printf '%-40s %14s %9s %14s %9s %s\n' "$workload" "taken branches" change instructions change check
status=0
for binary in "$prog" "${bolted[@]/#/$prog.}" "$prog.clang" "$prog.clang-perftk" "$prog.clang-truth"; do
  read -r taken executed check < <(measure "$binary")
  [ "$check" = ok ] || status=1
  case $binary in
    "$prog") label="$prog (gcc -O2)" ;;
    "$prog.perftk") label="BOLT, perftk --format=bolt" ;;
    "$prog.il64") label="BOLT, perftk --itrace=i1000il64" ;;
    "$prog.truth") label="BOLT, ground truth's profile" ;;
    "$prog.clang") label="$prog (clang -O2)" ;;
    "$prog.clang-perftk") label="AutoFDO, perftk --format=llvm-sample" ;;
    "$prog.clang-truth") label="AutoFDO, ground truth's profile" ;;
  esac
  case $binary in "$prog" | "$prog.clang") base=$taken base_executed=$executed ;; esac
  awk -v l="$label" -v t="$taken" -v b="$base" -v e="$executed" -v be="$base_executed" -v c="$check" \
    'BEGIN { printf "%-40s %14d %+8.1f%% %14d %+8.1f%% %s\n", l, t, 100 * (t - b) / b, e, 100 * (e - be) / be, c }'
done
exit "$status"
