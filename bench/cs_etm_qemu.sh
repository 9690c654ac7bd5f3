#!/usr/bin/env bash
# Benchmark (not a test): cs-etm-decode on the trace of a real program. The
# vendored Lua interpreter (third_party/lua, cross-built for aarch64)
# computes fib(N) under qemu-aarch64; perftk_qemu_etm --blocks turns qemu's
# log into a CoreSight perf.data and its ground truth (issue 23). Prints
# the trace (instructions, MB, qemu + recorder time and log lines/s) and
# for cs-etm-decode --format=autofdo with --jobs 1 and 2: wall time, MB/s,
# CPU time, peak RSS, and whether the output equals the truth.
#
#   bench/cs_etm_qemu.sh          # fib(27): ~127 M instructions, ~47 MB of trace, ~1 min
#   N=24 bench/cs_etm_qemu.sh     # ~30 M instructions
# Env: PERFTK (binary), QEMU_ETM (recorder; default next to PERFTK's build),
# KEEP=1 keeps the work directory.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${BUILD:-$here/../build}
PERFTK=${PERFTK:-$build/src/perftk}
QEMU_ETM=${QEMU_ETM:-$(dirname "$(dirname "$PERFTK")")/tests/perftk_qemu_etm}
PREFIX=/usr/aarch64-linux-gnu
N=${N:-27}
for bin in "$PERFTK" "$QEMU_ETM"; do
  [ -x "$bin" ] || { echo "missing $bin (build it: ninja -C $build perftk perftk_qemu_etm)" >&2; exit 1; }
done
for tool in qemu-aarch64 aarch64-linux-gnu-gcc; do
  command -v "$tool" >/dev/null || { echo "missing $tool (scripts/setup.sh installs it)" >&2; exit 1; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/perftk-etm-qemu-bench.XXXXXX")
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$work"' EXIT
cd "$work"

aarch64-linux-gnu-gcc -std=gnu99 -O2 -g -no-pie -Wl,--emit-relocs -DLUA_USE_POSIX \
  '-Dluai_makeseed(L)=0' -o lua "$here/../third_party/lua/src/onelua.c" -lm
cat >fib.lua <<'EOF'
local function fib(k) if k < 2 then return k end return fib(k - 1) + fib(k - 2) end
print(fib(tonumber(arg[1])))
EOF
start=$(date +%s.%N)
env -i "$(command -v qemu-aarch64)" -L "$PREFIX" -d in_asm,exec,nochain -strace -D /dev/stderr \
  ./lua fib.lua "$N" 2>&1 >lua.out |
  /usr/bin/time -f '%M' -o recorder.rss "$QEMU_ETM" --blocks --program ./lua --prefix "$PREFIX" \
    --buffer-kb 256 --out perf.data --truth-autofdo truth.afdo >recorder.out
end=$(date +%s.%N)
echo "fib($N) = $(cat lua.out) under qemu, recorded in $(awk -v a="$start" -v b="$end" \
  'BEGIN { printf "%.1f", b - a }') s (recorder peak RSS $(cat recorder.rss) KB)"
cat recorder.out
trace_mb=$(sed -nE 's/.* ([0-9.]+) MB of trace.*/\1/p' recorder.out)

for jobs in 1 2; do
  sync
  /usr/bin/time -f '%e %M %U %S' -o "jobs$jobs.time" \
    "$PERFTK" cs-etm-decode -q -i perf.data --format=autofdo --jobs "$jobs" -o "jobs$jobs.afdo"
  read -r wall rss user sys <"jobs$jobs.time"
  same=differs
  cmp -s truth.afdo "jobs$jobs.afdo" && same="equals the truth"
  awk -v j="$jobs" -v w="$wall" -v mb="$trace_mb" -v u="$user" -v s="$sys" -v r="$rss" -v same="$same" \
    'BEGIN { printf "--jobs %d: %.2f s, %.1f MB/s, CPU %.2f s, peak RSS %d KB; autofdo %s\n",
             j, w, mb / (w > 0 ? w : 0.01), u + s, r, same }'
done
