#!/usr/bin/env bash
# Benchmark: perf inject --jit vs perftk jit vs perftk jit --merge on one
# Node.js recording whose jitdump has tens of thousands of code loads.
#
#   bench/jit.sh [PERFTK] [FUNCTIONS] [WORKDIR]
#
# Node compiles FUNCTIONS distinct functions (default 30000) with
# --interpreted-frames-native-stack, which gives each its own copy of the
# interpreter trampoline, i.e. 2 to 3 CODE_LOADs per function: the default
# makes a dump of more than 60,000 CODE_LOADs (checked; the count is printed).
# Prints wall time, CPU time (user + system), peak RSS and files written per
# tool, and the speed-ups; the goals are perftk >= 10x and --merge >= 50x
# faster than perf inject, and perftk's peak RSS under 100 MB for 60,000
# functions. perf inject's ~/.debug copies go to a private HOME in WORKDIR
# and are counted as files written.
set -euo pipefail
PERFTK=$(realpath "${1:-build/src/perftk}")
FUNCTIONS=${2:-30000}
W=${3:-$(mktemp -d "${TMPDIR:-/tmp}/perftk-bench-jit.XXXXXX")}
mkdir -p "$W"
cd "$W"
rm -rf perf-home ours merged jitted-*.so jit-*.dump
cat >stress.js <<JS
const fns = [];
for (let i = 0; i < $FUNCTIONS; i++) fns.push(new Function('x', 'return x * ' + i + ' + ' + (i % 7) + ';'));
let s = 0;
for (let round = 0; round < 3; round++) for (const f of fns) s += f(round);
console.log('sum', s);
JS
perf record -q -k 1 -e cpu-clock -o perf.data node --perf-prof --interpreted-frames-native-stack \
  stress.js >/dev/null 2>record.err
dump=$(ls jit-*.dump)
echo "recording: $(stat -c %s perf.data) bytes; $dump: $(stat -c %s "$dump") bytes"

# measure NAME DIR_TO_COUNT COMMAND...: wall and CPU seconds, peak RSS (MB), files.
declare -A WALL CPU RSS FILES
measure() {
  local name=$1 count_dir=$2
  shift 2
  sync
  /usr/bin/time -f '%e %U %S %M' -o "$name.time" "$@" >"$name.out" 2>"$name.err" ||
    { echo "$name failed:"; tail -3 "$name.err"; exit 1; }
  read -r wall user sys rss <"$name.time"
  WALL[$name]=$wall
  CPU[$name]=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
  RSS[$name]=$((rss / 1024))
  FILES[$name]=$(find $count_dir -type f -name '*.so' 2>/dev/null | wc -l)
}

mkdir perf-home ours merged
measure perf_inject ". perf-home" env HOME="$W/perf-home" perf inject --jit -i perf.data -o perf.jit.data
measure perftk ours "$PERFTK" jit -i perf.data -o ours.data --jit-dir ours
measure perftk_merge merged "$PERFTK" jit -i perf.data -o merged.data --jit-dir merged --merge
grep -h 'perftk jit:' perftk.err perftk_merge.err || true
loads=$(sed -nE 's/.* ([0-9]+) code loads.*/\1/p' perftk.err)
echo "CODE_LOADs in the dump: $loads"
[ "${loads:-0}" -ge 60000 ] || echo "note: fewer than 60,000 CODE_LOADs; raise FUNCTIONS for the issue's size"

# perf inject counts the files under its private ~/.debug too; ours are only ours.
FILES[perf_inject]=$(($(ls jitted-*.so | wc -l) + $(find perf-home -type f | wc -l)))
printf '\n%-14s %10s %10s %12s %14s\n' tool "wall (s)" "CPU (s)" "peak RSS MB" "files written"
for t in perf_inject perftk perftk_merge; do
  printf '%-14s %10s %10s %12s %14s\n' "$t" "${WALL[$t]}" "${CPU[$t]}" "${RSS[$t]}" "${FILES[$t]}"
done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b <= 0) b = 0.005; printf "%.1fx", a / b }'; }
echo
echo "speed-up perftk jit         vs perf inject --jit: $(ratio "${WALL[perf_inject]}" "${WALL[perftk]}") (goal 10x)"
echo "speed-up perftk jit --merge vs perf inject --jit: $(ratio "${WALL[perf_inject]}" "${WALL[perftk_merge]}") (goal 50x)"
echo "CPU time ratio perftk / --merge vs perf inject: $(ratio "${CPU[perf_inject]}" "${CPU[perftk]}") / $(ratio "${CPU[perf_inject]}" "${CPU[perftk_merge]}")"
for t in perftk perftk_merge; do
  [ "${RSS[$t]}" -lt 100 ] && verdict=ok || verdict=OVER
  echo "peak RSS $t: ${RSS[$t]} MB (goal < 100 MB): $verdict"
done
echo "work dir: $W"
