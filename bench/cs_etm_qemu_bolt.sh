#!/usr/bin/env bash
# Benchmark (not a test): BOLT driven by perftk's profiles of a real run
# (issue 23, step 4). The vendored Lua interpreter, cross-built for aarch64
# with relocations, runs tests/shell/lib/qemu_workload.lua with fib(N)
# under qemu-aarch64; perftk_qemu_etm --blocks turns the run into a
# CoreSight perf.data and its ground truth's BOLT text. llvm-bolt-16
# optimizes lua with three profiles: perftk's --format=bolt (perf2bolt
# --pa), perftk's --itrace=i1000il64 branch stacks (perf2bolt -p, needs
# perf), and the ground truth's text. Each binary then runs the same
# workload under qemu one instruction at a time; printed: the taken
# branches and instructions executed in lua's own code per run (libc and
# ld.so, which BOLT leaves alone, are not counted), and each binary's output
# checked against the original's.
#
#   bench/cs_etm_qemu_bolt.sh         # N=24: 31 M instructions a run, ~5 min
#   N=20 bench/cs_etm_qemu_bolt.sh    # (qemu -singlestep: ~1.5 us an instruction)
# The binaries' names differ in length, and so does Lua's arg[0]: runs of
# two binaries built alike differ by a few instructions.
# Env: PERFTK (binary), QEMU_ETM (recorder; default next to PERFTK's build),
# KEEP=1 keeps the work directory.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${BUILD:-$here/../build}
PERFTK=${PERFTK:-$build/src/perftk}
QEMU_ETM=${QEMU_ETM:-$(dirname "$(dirname "$PERFTK")")/tests/perftk_qemu_etm}
BOLT_BIN=${BOLT_BIN:-/usr/lib/llvm-16/bin}
N=${N:-24}
for bin in "$PERFTK" "$QEMU_ETM" "$BOLT_BIN/perf2bolt" "$BOLT_BIN/llvm-bolt"; do
  [ -x "$bin" ] || { echo "missing $bin (ninja -C $build perftk perftk_qemu_etm; bolt-16)" >&2; exit 1; }
done
for tool in qemu-aarch64 aarch64-linux-gnu-gcc perl; do
  command -v "$tool" >/dev/null || { echo "missing $tool (scripts/setup.sh installs it)" >&2; exit 1; }
done
export PERFTK_SOURCE_DIR=$here/..
source "$here/../tests/shell/lib/qemu_lua.bash"
SCRIPT=$PERFTK_SOURCE_DIR/tests/shell/lib/qemu_workload.lua
work=$(mktemp -d "${TMPDIR:-/tmp}/perftk-etm-bolt-bench.XXXXXX")
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$work"' EXIT
cd "$work"
seconds() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(seconds)" 'BEGIN { printf "%.1f", b - a }'; }

build_lua lua aarch64-linux-gnu-gcc
mkdir truth
start=$(seconds)
env -i "$(command -v qemu-aarch64)" -L "$QEMU_PREFIX" -d in_asm,exec,nochain -strace -D /dev/stderr \
  ./lua "$SCRIPT" "$N" 2>&1 >train.out |
  "$QEMU_ETM" --blocks --program ./lua --prefix "$QEMU_PREFIX" --buffer-kb 256 --out train.data \
    --truth-bolt-dir truth >train.stats
echo "training run (fib($N)) traced in $(elapsed "$start") s: $(cat train.stats)"

start=$(seconds)
"$PERFTK" cs-etm-decode -q -i train.data --format=bolt --dso lua -o perftk.pa
echo "--format=bolt in $(elapsed "$start") s; equals the truth's text: $(cmp -s perftk.pa truth/lua.bolt &&
  echo yes || echo NO)"
profiles=(perftk truth)
if command -v perf >/dev/null; then
  start=$(seconds)
  "$PERFTK" cs-etm-decode -q -i train.data --itrace=i1000il64 -o il64.data
  echo "--itrace=i1000il64 in $(elapsed "$start") s ($(du -m il64.data | cut -f1) MB)"
  profiles+=(il64)
fi

for name in "${profiles[@]}"; do
  case $name in
    perftk) args=(--pa -p perftk.pa) ;;
    truth) args=(--pa -p truth/lua.bolt) ;;
    il64) args=(-p il64.data) ;;
  esac
  start=$(seconds)
  HOME=$work "$BOLT_BIN/perf2bolt" "${args[@]}" -o "$name.fdata" ./lua >"$name.perf2bolt" 2>&1
  "$BOLT_BIN/llvm-bolt" ./lua -o "lua.$name" -data "$name.fdata" -reorder-blocks=ext-tsp \
    -reorder-functions=hfsort -split-functions -split-all-cold -dyno-stats >"$name.bolt" 2>&1
  echo "$name: perf2bolt + llvm-bolt in $(elapsed "$start") s;" \
    "$(grep -o 'traces mismatching.*' "$name.perf2bolt" || echo 'no mismatch line')"
done

printf '%-34s %14s %9s %16s %9s %s\n' binary "taken branches" change "instructions" change output
read -r base base_executed < <(taken_branches ./lua "$SCRIPT" "$N")
for name in original "${profiles[@]}"; do
  binary=./lua.$name
  if [ "$name" = original ]; then
    binary=./lua taken=$base executed=$base_executed
  else
    read -r taken executed < <(taken_branches "$binary" "$SCRIPT" "$N")
  fi
  same=ok
  cmp -s lua.out "$binary.out" || same=DIFFERS
  case $name in
    original) label="lua (gcc -O2)" ;;
    perftk) label="BOLT, perftk --format=bolt" ;;
    il64) label="BOLT, perftk --itrace=i1000il64" ;;
    truth) label="BOLT, ground truth" ;;
  esac
  awk -v l="$label" -v t="$taken" -v b="$base" -v e="$executed" -v be="$base_executed" -v s="$same" \
    'BEGIN { printf "%-34s %14d %+8.1f%% %16d %+8.1f%% %s\n", l, t, 100 * (t - b) / b, e, 100 * (e - be) / be, s }'
done
