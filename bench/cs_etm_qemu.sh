#!/usr/bin/env bash
# Benchmark (not a test): cs-etm-decode on the trace of a real program. The
# vendored Lua interpreter (third_party/lua, cross-built for aarch64)
# computes fib(N) under qemu-aarch64; perftk_qemu_etm --blocks turns qemu's
# log into a CoreSight perf.data and its ground truth (issue 23). Prints
# the trace (instructions, MB, qemu + recorder time and log lines/s), then
# for each decode: wall time, MB of trace per second, CPU time, CPUs busy,
# peak RSS (bench/measure.py: the median of REPEAT runs), and whether its
# output is right, with the fast decoder (--jobs 1 and 2) and with
# --decoder=opencsd (--jobs 1):
#   - --format=autofdo: equal to the ground truth;
#   - --itrace=il64 --format=script (perf script's -F pid,tid,ip,brstack
#     lines): equal to the fast decoder's --jobs 1;
# then the fast decoder's speed-up over the OpenCSD path, --jobs 2's over
# --jobs 1, and millions of executed instructions decoded per second per
# core (the figure that does not depend on how well the trace compresses),
# each of the median runs and of the shortest; beside --jobs 2's speed-up,
# the machine's own ceiling for it: two --jobs 1 decodes run side by side,
# twice the work, against one alone, and the same for a loop of adds on
# registers alone (bench/programs/busy_loop.c: what two busy cores of this
# VM give any program, in the same minutes);
#   - with PERF_CORESIGHT=/path/to/perf (bench/build_perf_coresight.sh): perf
#     script --itrace=il64 on the same recording (indexed by perftk copy),
#     the ratio of its time to perftk's, and whether its lines are perftk's.
#     perf 6.1 writes, at the start of each trace block after the first, a
#     second copy of the sample that ended the previous block (period 0: a
#     stale packet meets the TRACE_ON); without those copies the samples
#     should be equal (a tight loop makes equal adjacent samples of its
#     own, so the copies are told by their period, not by being equal).
#
# PROGRAM=zstd (the vendored zstd compressing KB kilobytes, 256 by default,
# at level 9: long loops, many instructions per trace byte) or PROGRAM=zlib
# (the vendored zlib deflating KB kilobytes at level 9 and inflating them
# back: bench/programs/zlib_round_trip.c) instead of Lua.
#
#   bench/cs_etm_qemu.sh          # fib(27): ~127 M instructions, ~47 MB of trace, ~2 min
#   N=24 bench/cs_etm_qemu.sh     # ~30 M instructions
#   N=30 REPEAT=1 bench/cs_etm_qemu.sh   # ~540 M instructions, ~200 MB of trace
# Env: PERFTK (binary), QEMU_ETM (recorder; default next to PERFTK's build),
# PERF_CORESIGHT, REPEAT (default 3), KEEP=1 keeps the work directory,
# REUSE=DIR measures the decodes again on a kept directory's recording.
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
if [ -n "${REUSE:-}" ]; then
  # A work directory kept (KEEP=1) by an earlier run: its recording again.
  work=$(cd "$REUSE" && pwd)
  cd "$work"
  echo "reusing the recording in $work"
  cat recorder.out
else
  work=$(mktemp -d "${TMPDIR:-/tmp}/perftk-etm-qemu-bench.XXXXXX")
  [ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$work"' EXIT
  cd "$work"
  export PERFTK_SOURCE_DIR=$here/..
  lib=$PERFTK_SOURCE_DIR/tests/shell/lib
  skip() { echo "missing: $*" >&2; exit 1; }
  fail() { echo "FAIL: $*" >&2; exit 1; }
  case ${PROGRAM:-lua} in
    lua)
      aarch64-linux-gnu-gcc -std=gnu99 -O2 -g -no-pie -Wl,--emit-relocs -DLUA_USE_POSIX \
        '-Dluai_makeseed(L)=0' -o lua "$here/../third_party/lua/src/onelua.c" -lm
      cat >fib.lua <<'EOF'
local function fib(k) if k < 2 then return k end return fib(k - 1) + fib(k - 2) end
print(fib(tonumber(arg[1])))
EOF
      program=lua args=(fib.lua "$N") what="fib($N)"
      ;;
    zstd)
      # shellcheck source=../tests/shell/lib/qemu_zstd.bash
      source "$lib/qemu_zstd.bash"
      build_zstd zstd aarch64-linux-gnu-gcc || fail "building zstd"
      KB=${KB:-256}
      zstd_input input "$KB" || fail "no $KB KB of input"
      program=zstd args=(-q -9 input -o input.zst) what="zstd -9 of $KB KB"
      ;;
    zlib)
      # The vendored zlib deflating KB kilobytes at level 9 and inflating
      # them back (bench/programs/zlib_round_trip.c; zlib's own
      # test/example.c, which the tests trace, runs too few instructions to
      # time a decoder on).
      zlib=$here/../third_party/zlib
      aarch64-linux-gnu-gcc -O2 -g -no-pie -Wl,--emit-relocs -DZ_HAVE_UNISTD_H -I"$zlib" \
        -o zlib_round_trip "$zlib"/{adler32,compress,crc32,deflate,inffast,inflate,inftrees,trees,uncompr,zutil}.c \
        "$here/programs/zlib_round_trip.c" || fail "building zlib_round_trip"
      KB=${KB:-256}
      # zlib's own sources (cat ends by SIGPIPE when head has enough)
      { cat "$zlib"/*.c "$zlib"/*.h || true; } | head -c $((KB * 1024)) >input
      [ "$(wc -c <input)" -eq $((KB * 1024)) ] || fail "zlib's sources are less than $KB KB"
      program=zlib_round_trip args=(input) what="zlib -9 and back of $KB KB"
      ;;
    *) fail "PROGRAM=$PROGRAM: lua, zstd or zlib" ;;
  esac
  start=$(date +%s.%N)
  env -i "$(command -v qemu-aarch64)" -L "$PREFIX" -d in_asm,exec,nochain -strace -D /dev/stderr \
    "./$program" "${args[@]}" 2>&1 >lua.out </dev/null |
    /usr/bin/time -f '%M' -o recorder.rss "$QEMU_ETM" --blocks --program "./$program" --prefix "$PREFIX" \
      --buffer-kb 256 --out perf.data --truth-autofdo truth.afdo >recorder.out
  end=$(date +%s.%N)
  echo "$what = $(head -c 80 lua.out) under qemu, recorded in $(awk -v a="$start" -v b="$end" \
    'BEGIN { printf "%.1f", b - a }') s (recorder peak RSS $(cat recorder.rss) KB)"
  cat recorder.out
fi
trace_mb=$(sed -nE 's/.* ([0-9.]+) MB of trace.*/\1/p' recorder.out)
cc -O2 -o busy_loop "$here/programs/busy_loop.c" || { echo "missing: cc, for busy_loop" >&2; exit 1; }
busy=(./busy_loop 200000000)

measure() { python3 "$here/measure.py" "${REPEAT:-3}" "$@"; }
printf '\n%-26s %9s %7s %8s %5s %14s  %s\n' decode "wall (s)" "MB/s" "CPU (s)" busy "peak RSS (KB)" output
row() {  # NAME "wall cpu rss best" VERDICT
  local wall cpu rss
  read -r wall cpu rss _ <<<"$2"
  awk -v n="$1" -v w="$wall" -v c="$cpu" -v r="$rss" -v mb="$trace_mb" -v v="$3" \
    'BEGIN { if (w <= 0) w = 0.001; printf "%-26s %9.2f %7.1f %8.2f %5.2f %14d  %s\n", n, w, mb / w, c, c / w, r, v }'
}
declare -A RESULT WALL BEST
keep() {  # KEY "wall cpu rss best"
  RESULT[$1]=$2
  WALL[$1]=${2%% *}
  BEST[$1]=${2##* }
}
# Per format: the outputs, for the verdicts; then the fast decoder's
# --jobs 1 and --jobs 2 and two --jobs 1 decodes side by side (what two
# cores of this machine give at best: --jobs 2 cannot beat it, and on a
# shared VM it is well below 2), measured in turn, round after round, so
# that their ratios come from the same minutes; then the OpenCSD path.
for format in autofdo il64; do
  flags=(--format=autofdo)
  [ "$format" = il64 ] && flags=(--itrace=il64 --format=script)
  decode=("$PERFTK" cs-etm-decode -q -i perf.data "${flags[@]}")
  for run in fast.1 fast.2 opencsd.1; do
    "${decode[@]}" --decoder="${run%.*}" --jobs "${run#*.}" -o "$format.$run"
  done
  mapfile -t results < <(measure "${decode[@]}" --jobs 1 -o /dev/null \
    --next "${decode[@]}" --jobs 2 -o /dev/null \
    --next bash -c '"$@" & "$@"; wait' bash "${decode[@]}" --jobs 1 -o /dev/null \
    --next "${busy[@]}" --next bash -c '"$@" & "$@"; wait' bash "${busy[@]}")
  keep "$format.fast.1" "${results[0]}"
  keep "$format.fast.2" "${results[1]}"
  keep "$format.pair" "${results[2]}"
  keep "$format.busy" "${results[3]}"
  keep "$format.busy_pair" "${results[4]}"
  keep "$format.opencsd.1" "$(measure "${decode[@]}" --decoder=opencsd --jobs 1 -o /dev/null)"
  for run in fast.1 fast.2 opencsd.1; do
    case $format.$run in
      autofdo.*)
        verdict=differs
        cmp -s truth.afdo "$format.$run" && verdict="equals the truth"
        ;;
      il64.fast.1) verdict="$(wc -l <"$format.$run") samples" ;;
      *)
        verdict="$(wc -l <"$format.$run") samples"
        if cmp -s il64.fast.1 "$format.$run"; then
          verdict+=", equal to fast --jobs 1"
        else
          verdict+=", DIFFERS from fast --jobs 1"
        fi
        ;;
    esac
    row "$format ${run%.*} --jobs ${run#*.}" "${RESULT[$format.$run]}" "$verdict"
  done
done
if [ -n "${PERF_CORESIGHT:-}" ]; then
  # perf reads AUX data in file order only through an AUXTRACE index,
  # which perftk copy writes.
  "$PERFTK" copy -q -i perf.data -o indexed.data
  perf_script=(env HOME="$work" "$PERF_CORESIGHT" script -i indexed.data --itrace=il64
    -F "pid,tid,period,ip,brstack")
  "${perf_script[@]}" >perf.script 2>perf.err
  result=$(measure "${perf_script[@]}")
  # Without the period-0 copies and the period column, spaces squeezed (the
  # ip's column is one narrower with a period before it).
  awk '$2 != 0' perf.script | sed -E 's/^( *[0-9-]+\/[0-9-]+) +[0-9]+ /\1 /' | tr -s ' ' >perf.lines
  copies=$(awk '$2 == 0' perf.script | wc -l)
  verdict="$(wc -l <perf.script) samples, $copies period-0 copies"
  if tr -s ' ' <il64.fast.1 | cmp -s - perf.lines; then
    verdict+="; without them equal to perftk's"
  else
    first=$({ tr -s ' ' <il64.fast.1 | cmp - perf.lines 2>/dev/null || true; } |
      sed -nE 's/.* line ([0-9]+).*/\1/p')
    verdict+="; without them DIFFERENT from perftk's (first at sample ${first:-?})"
  fi
  row "perf script --itrace=il64" "$result" "$verdict"
  keep perf "$result"
fi
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / (b > 0 ? b : 0.001) }'; }
instructions=$(sed -nE 's/.* ([0-9]+) instructions.*/\1/p' recorder.out)
per_core() {  # WALL: millions of executed instructions per second, one core
  awk -v n="$instructions" -v w="$1" 'BEGIN { printf "%.0f", n / (w > 0 ? w : 0.001) / 1e6 }'
}
echo
# Each ratio twice: of the median runs, then of the shortest (the runs least
# slowed by what shares the host).
both() {  # NUMERATOR DENOMINATOR: "median ratio x (best: best ratio x)"
  echo "$(ratio "${WALL[$1]}" "${WALL[$2]}")x (best runs $(ratio "${BEST[$1]}" "${BEST[$2]}")x)"
}
twice() {  # ONE PAIR: the speed-up of two runs side by side over one alone
  awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", 2 * a / (b > 0 ? b : 0.001) }'
}
for format in autofdo il64; do
  echo "$format: fast / OpenCSD path (--jobs 1): $(both "$format.opencsd.1" "$format.fast.1");" \
    "--jobs 2 / --jobs 1: $(both "$format.fast.1" "$format.fast.2")" \
    "against $(twice "${WALL[$format.fast.1]}" "${WALL[$format.pair]}")x (best runs" \
    "$(twice "${BEST[$format.fast.1]}" "${BEST[$format.pair]}")x) for two --jobs 1 side by side" \
    "and $(twice "${WALL[$format.busy]}" "${WALL[$format.busy_pair]}")x (best runs" \
    "$(twice "${BEST[$format.busy]}" "${BEST[$format.busy_pair]}")x) for two busy loops;" \
    "$(per_core "${WALL[$format.fast.1]}") M instructions/s per core" \
    "(best run $(per_core "${BEST[$format.fast.1]}") M)"
done
if [ -n "${WALL[perf]:-}" ]; then
  echo "perf script / perftk il64 fast: $(both perf il64.fast.1) (--jobs 1)," \
    "$(both perf il64.fast.2) (--jobs 2)"
fi
[ "${KEEP:-0}" = 1 ] && echo "work dir: $work"
exit 0
