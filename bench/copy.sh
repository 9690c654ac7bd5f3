#!/usr/bin/env bash
# Benchmark: the identity rewrite `perftk copy` against `perf inject` on the
# same input, wall time and peak RSS side by side, and how perftk's memory
# grows with a 10x larger input.
#   bench/copy.sh [perf.data]      # without an argument, records ~25 MB with -g
# Goals (issue 2): copy >= 5x faster than perf inject; peak RSS on the 10x
# input <= 1.5x that on the 1x input.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
PERFTK=${PERFTK:-$here/../build/src/perftk}
work=$(mktemp -d "${TMPDIR:-/tmp}/perftk-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

if [ $# -ge 1 ]; then
  input=$(realpath "$1")
else
  echo "recording a call-graph profile (about 25 MB)..." >&2
  cc -O1 -g -fno-omit-frame-pointer -fno-inline -o "$work/workload" \
    "$here/../tests/shell/lib/workload.c" -lpthread
  perf record -q -e cpu-clock -c 25000 -g -o "$work/in.data" -- "$work/workload" 2500 1 >/dev/null
  input=$work/in.data
fi

# best of N runs: prints "seconds max_rss_kb"
measure() {
  local best_t="" best_m=""
  for _ in 1 2 3; do
    read -r t m < <(/usr/bin/time -f "%e %M" "$@" 2>&1 >/dev/null | tail -1)
    if [ -z "$best_t" ] || awk "BEGIN{exit !($t < $best_t)}"; then best_t=$t; fi
    if [ -z "$best_m" ] || [ "$m" -lt "$best_m" ]; then best_m=$m; fi
  done
  echo "$best_t $best_m"
}
ratio() { awk "BEGIN{ if ($2 == 0) print \"inf\"; else printf \"%.1f\", $1 / $2 }"; }

size_mb=$(awk "BEGIN{printf \"%.1f\", $(stat -c %s "$input") / 1e6}")
read -r pt pm < <(measure "$PERFTK" copy -i "$input" -o "$work/copy.data")
read -r it im < <(measure perf inject -i "$input" -o "$work/inject.data")
printf '%-24s %10s %12s\n' "input ${size_mb} MB" "wall s" "peak RSS MB"
printf '%-24s %10s %12.1f\n' "perftk copy" "$pt" "$(awk "BEGIN{print $pm/1024}")"
printf '%-24s %10s %12.1f\n' "perf inject" "$it" "$(awk "BEGIN{print $im/1024}")"
echo "speed: perftk copy is $(ratio "$it" "$pt")x faster than perf inject"

python3 "$here/scale_perf_data.py" "$input" "$work/in10.data" 10
read -r pt10 pm10 < <(measure "$PERFTK" copy -i "$work/in10.data" -o "$work/copy10.data")
echo "memory: 10x input ($(awk "BEGIN{printf \"%.0f\", $(stat -c %s "$work/in10.data")/1e6}") MB):" \
  "perftk copy peak RSS $(awk "BEGIN{printf \"%.1f\", $pm10/1024}") MB," \
  "$(ratio "$pm10" "$pm")x the 1x input; wall ${pt10} s"
