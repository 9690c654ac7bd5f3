#!/usr/bin/env bash
# Benchmark (not a test): decode throughput of `perftk cs-etm-decode` on a
# large synthetic ETMv4 recording made by perftk_etm_gen (tests/cs_etm_gen).
#
#   bench/cs_etm.sh                      # 4 CPUs, 200 MB of formatted trace
#   CPUS=2 TRACE_MB=20 bench/cs_etm.sh   # smaller
#   RAW=1 bench/cs_etm.sh                # raw (TRBE-like) trace instead of frames
#   PERF_CORESIGHT=/path/to/perf bench/cs_etm.sh   # also perf script --itrace=il64
#                                        # (bench/build_perf_coresight.sh builds one)
# Env: PERFTK (binary), ETM_GEN (generator; default next to PERFTK's build),
# KEEP=1 keeps the work directory, REPEAT=N runs each perftk configuration N
# times (default 3) and reports the fastest, listing all.
# Prints trace MB, wall time, MB/s, CPU time (user + system), CPUs busy (CPU
# time / wall) and peak RSS for --jobs 1 and --jobs 2 (perf.data output) and
# --format=script (--jobs 1), the speed-up, and script's peak RSS against
# perf.data's; a run that fails prints n/a.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${BUILD:-$here/../build}
PERFTK=${PERFTK:-$build/src/perftk}
ETM_GEN=${ETM_GEN:-$(dirname "$(dirname "$PERFTK")")/tests/perftk_etm_gen}
CPUS=${CPUS:-4}
TRACE_MB=${TRACE_MB:-200}
for bin in "$PERFTK" "$ETM_GEN"; do
  [ -x "$bin" ] || { echo "missing $bin (build it: ninja -C $build perftk perftk_etm_gen)" >&2; exit 1; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/perftk-etm-bench.XXXXXX")
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$work"' EXIT

gen_args=(--cpus "$CPUS" --trace-mb "$TRACE_MB" --out "$work")
[ "${RAW:-0}" = 1 ] && gen_args+=(--raw)
echo "generating: $ETM_GEN ${gen_args[*]}"
/usr/bin/time -f '%e %M' -o "$work/gen.time" "$ETM_GEN" "${gen_args[@]}" || exit 1
read -r gen_wall gen_rss <"$work/gen.time"
echo "generator: $gen_wall s, peak RSS $gen_rss KB"

declare -A WALL RSS CPU STATUS ALL
run() {  # name, command...
  local name=$1
  shift
  sync
  if /usr/bin/time -f '%e %M %U %S' -o "$work/$name.time" "$@" >"$work/$name.out" \
    2>"$work/$name.err"; then
    local user sys
    read -r WALL[$name] RSS[$name] user sys <"$work/$name.time"
    CPU[$name]=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
    STATUS[$name]=ok
  else
    WALL[$name]=n/a
    RSS[$name]=n/a
    CPU[$name]=n/a
    STATUS[$name]="failed: $(grep -v '^Command exited' "$work/$name.err" | tail -1)"
  fi
}
# run_best NAME COMMAND...: REPEAT runs, the fastest kept. Two vCPUs can be
# slowed at times by what shares their host (seen: --jobs 2 using 1.6x the
# CPU time of its other runs), which one run would take for our speed.
run_best() {
  local name=$1 best="" best_cpu="" best_rss="" times="" i
  shift
  for ((i = 0; i < ${REPEAT:-3}; i++)); do
    run "$name" "$@"
    [ "${STATUS[$name]}" = ok ] || return
    times+="${times:+ }${WALL[$name]}"
    if [ -z "$best" ] || awk -v a="${WALL[$name]}" -v b="$best" 'BEGIN { exit !(a < b) }'; then
      best=${WALL[$name]} best_cpu=${CPU[$name]} best_rss=${RSS[$name]}
    fi
  done
  WALL[$name]=$best CPU[$name]=$best_cpu RSS[$name]=$best_rss
  ALL[$name]=$times
}
# divide NUMERATOR DENOMINATOR [DIGITS]: the quotient, n/a for a failed run.
divide() {
  case "$1$2" in *n/a*) echo n/a; return ;; esac
  awk -v a="$1" -v b="$2" -v d="${3:-2}" 'BEGIN { if (b <= 0) b = 0.01; printf "%.*f", d, a / b }'
}

run_best jobs1 "$PERFTK" cs-etm-decode --itrace=il64 --jobs 1 -i "$work/perf.data" -o "$work/jobs1.data"
run_best jobs2 "$PERFTK" cs-etm-decode --itrace=il64 --jobs 2 -i "$work/perf.data" -o "$work/jobs2.data"
# The same samples as text: written as blocks are decoded, its peak RSS
# must not exceed the perf.data output's (issue 31).
run_best script "$PERFTK" cs-etm-decode --itrace=il64 --format=script --jobs 1 -i "$work/perf.data" \
  -o "$work/script.txt"
names=(jobs1 jobs2 script)
# Trace bytes as the decoder counted them ("N trace blocks (B bytes)"), else the file size.
trace_bytes=$(sed -nE 's/.*trace blocks \(([0-9]+) bytes\).*/\1/p' "$work/jobs1.err" | sed -n 1p)
[ -n "$trace_bytes" ] || trace_bytes=$(stat -c %s "$work/perf.data")
trace_mb=$(awk -v b="$trace_bytes" 'BEGIN { printf "%.1f", b / 1048576 }')
if [ -n "${PERF_CORESIGHT:-}" ]; then
  # perf needs an AUXTRACE index to read AUX records (else it decodes as a
  # stream): perftk copy writes one.
  "$PERFTK" copy -i "$work/perf.data" -o "$work/indexed.data" >/dev/null 2>&1
  run perf_script env HOME="$work" "$PERF_CORESIGHT" script -i "$work/indexed.data" --itrace=il64 \
    -F pid,tid,ip,brstack
  names+=(perf_script)
fi

echo
echo "trace: $trace_mb MB in $CPUS CPUs' buffers; perf.data $(stat -c %s "$work/perf.data") bytes"
grep -h 'trace blocks' "$work/jobs1.err" || true
printf '%-12s %9s %7s %8s %6s %14s  %s\n' run "wall (s)" "MB/s" "CPU (s)" busy "peak RSS (KB)" \
  "status (all runs' wall s)"
for n in "${names[@]}"; do
  printf '%-12s %9s %7s %8s %6s %14s  %s\n' "$n" "${WALL[$n]}" "$(divide "$trace_mb" "${WALL[$n]}" 1)" \
    "${CPU[$n]}" "$(divide "${CPU[$n]}" "${WALL[$n]}")" "${RSS[$n]}" \
    "${STATUS[$n]}${ALL[$n]:+ ($(echo ${ALL[$n]}) s)}"
done
if [ "${STATUS[jobs1]}" = ok ] && [ "${STATUS[script]}" = ok ]; then
  echo "peak RSS --format=script / --format=perf (--jobs 1): $(divide "${RSS[script]}" \
    "${RSS[jobs1]}")x (at most 1.00x: the text is not kept)"
fi
if [ "${STATUS[jobs1]}" = ok ] && [ "${STATUS[jobs2]}" = ok ]; then
  echo "speed-up --jobs 2 / --jobs 1: $(divide "${WALL[jobs1]}" "${WALL[jobs2]}")x"
  # Near 2 CPUs busy with the speed-up short of it means each CPU ran slower
  # with both busy (the host), not that the work did not split.
  echo "CPU time --jobs 2 / --jobs 1: $(divide "${CPU[jobs2]}" "${CPU[jobs1]}")x" \
    "(1.00x: no work added by running in parallel)"
  if cmp -s "$work/jobs1.data" "$work/jobs2.data"; then echo "outputs identical"; else echo "outputs DIFFER"; fi
else
  echo "speed-up --jobs 2 / --jobs 1: n/a"
fi
[ "${KEEP:-0}" = 1 ] && echo "work dir: $work"
exit 0
