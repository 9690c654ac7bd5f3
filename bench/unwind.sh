#!/usr/bin/env bash
# Benchmark: perftk unwind (--jobs 1 and 2) vs perf script and perf report,
# which unwind every sample of a --call-graph dwarf recording themselves.
#
#   bench/unwind.sh [PERFTK] [SECONDS] [WORKDIR]
#
# Records SECONDS (default 10) of tests/shell/lib/qsort_chain.c built with
# -O2 -fomit-frame-pointer (a qsort callback 20-odd frames deep) at perf's
# default rate with 8 KB stack copies; the size is printed (10 s gave 150 MB
# on a busy 2-vCPU host: give 20 for the issue's ~300 MB). Prints wall time, CPU time and peak RSS of each
# run, checks that --jobs 2 writes the bytes of --jobs 1, and the ratios the
# issue sets as goals: perftk unwind --jobs 1 >= 3x faster than perf script,
# --jobs 2 >= 1.7x faster than --jobs 1. Every command runs REPEAT times
# (default 5) under bench/measure.py, after a sync each, and the medians
# count. Peak RSS must not grow with the samples: perftk also runs on a
# recording a quarter as long, and both RSS figures are printed.
set -euo pipefail
SOURCE_DIR=$(cd "$(dirname "$0")/.." && pwd)
PERFTK=$(realpath "${1:-build/src/perftk}")
SECONDS_RECORDED=${2:-10}
W=${3:-$(mktemp -d "${TMPDIR:-/tmp}/perftk-bench-unwind.XXXXXX")}
REPEAT=${REPEAT:-5}
mkdir -p "$W"
cd "$W"
echo "work dir $W, $(nproc) CPUs"

cc -O2 -fomit-frame-pointer -g -o prog "$SOURCE_DIR/tests/shell/lib/qsort_chain.c"
quarter=$(awk -v s="$SECONDS_RECORDED" 'BEGIN { printf "%.2f", s / 4 }')
perf record -q -e cpu-clock --call-graph dwarf -o perf.data -- ./prog --seconds "$SECONDS_RECORDED" >/dev/null
perf record -q -e cpu-clock --call-graph dwarf -o quarter.data -- ./prog --seconds "$quarter" >/dev/null
samples() { "$PERFTK" dump -i "$1" | grep -c ' type=SAMPLE '; }
echo "recording: $(stat -c %s perf.data) bytes, $(samples perf.data) samples;" \
  "quarter: $(stat -c %s quarter.data) bytes, $(samples quarter.data) samples"

# measure NAME RUNS COMMAND...: runs COMMAND once for its output and
# messages (NAME.out, NAME.err), then RUNS times under bench/measure.py:
# the median wall and CPU seconds (timed to the microsecond) and peak RSS.
declare -A WALL CPU RSS
measure() {
  local name=$1 runs=$2 wall cpu rss
  shift 2
  "$@" >"$name.out" 2>"$name.err" || { echo "$name failed:"; tail -3 "$name.err"; exit 1; }
  read -r wall cpu rss < <(python3 "$SOURCE_DIR/bench/measure.py" "$runs" "$@")
  WALL[$name]=$(awk -v w="$wall" 'BEGIN { printf "%.3f", w }')
  CPU[$name]=$(awk -v c="$cpu" 'BEGIN { printf "%.3f", c }')
  RSS[$name]=$((rss / 1024))
}

measure perf_script "$REPEAT" perf script -i perf.data
measure perf_report "$REPEAT" perf report -i perf.data --stdio
measure unwind_jobs1 "$REPEAT" "$PERFTK" unwind -i perf.data -o jobs1.data --jobs 1
measure unwind_jobs2 "$REPEAT" "$PERFTK" unwind -i perf.data -o jobs2.data --jobs 2
measure unwind_quarter "$REPEAT" "$PERFTK" unwind -i quarter.data -o quarter.out --jobs 1
cat unwind_jobs1.err
if cmp -s jobs1.data jobs2.data; then
  echo "outputs of --jobs 1 and --jobs 2: identical"
else
  echo "outputs of --jobs 1 and --jobs 2: DIFFERENT"
fi
echo "output: $(stat -c %s jobs1.data) bytes," \
  "$(awk -v a="$(stat -c %s jobs1.data)" -v b="$(stat -c %s perf.data)" 'BEGIN { printf "%.1f%%", 100 * a / b }') of the input"

printf '\n%-15s %10s %10s %12s\n' run "wall (s)" "CPU (s)" "peak RSS MB"
for t in perf_script perf_report unwind_jobs1 unwind_jobs2 unwind_quarter; do
  printf '%-15s %10s %10s %12s\n' "$t" "${WALL[$t]}" "${CPU[$t]}" "${RSS[$t]}"
done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b <= 0) b = 0.005; printf "%.2fx", a / b }'; }
echo
echo "perftk unwind --jobs 1 vs perf script: $(ratio "${WALL[perf_script]}" "${WALL[unwind_jobs1]}") faster (goal 3x)"
echo "perftk unwind --jobs 1 vs perf report: $(ratio "${WALL[perf_report]}" "${WALL[unwind_jobs1]}") faster"
echo "perftk unwind --jobs 2 vs --jobs 1:    $(ratio "${WALL[unwind_jobs1]}" "${WALL[unwind_jobs2]}") faster (goal 1.7x)"
echo "CPU time --jobs 2 / --jobs 1:          $(ratio "${CPU[unwind_jobs2]}" "${CPU[unwind_jobs1]}")"
echo "peak RSS full / quarter recording:     ${RSS[unwind_jobs1]} / ${RSS[unwind_quarter]} MB"
at_least() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= b) }'; }
missed=()
at_least "$(awk -v a="${WALL[perf_script]}" -v b="${WALL[unwind_jobs1]}" 'BEGIN { print a / b }')" 3 ||
  missed+=("jobs 1 vs perf script")
at_least "$(awk -v a="${WALL[unwind_jobs1]}" -v b="${WALL[unwind_jobs2]}" 'BEGIN { print a / b }')" 1.7 ||
  missed+=("jobs 2 vs jobs 1")
cmp -s jobs1.data jobs2.data || missed+=("identical outputs")
if [ ${#missed[@]} -eq 0 ]; then echo "goals: all met"; else echo "goals missed: ${missed[*]}"; fi
echo "work dir: $W (remove it when done)"
