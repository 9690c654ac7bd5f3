#!/usr/bin/env bash
# Benchmark: perf inject --jit vs perftk jit vs perftk jit --merge on one
# Node.js recording whose jitdump has tens of thousands of code loads.
#
#   bench/jit.sh [PERFTK] [FUNCTIONS] [WORKDIR]
#   CLEANUP=1 bench/jit.sh ...    # remove WORKDIR at the end
#   UNWINDING=1 bench/jit.sh ...  # node --perf-prof-unwinding-info: every load
#                                 # comes with unwinding tables, which --merge
#                                 # puts into its one file too
#
# Node compiles FUNCTIONS distinct functions (default 30000) with
# --interpreted-frames-native-stack, which gives each its own copy of the
# interpreter trampoline, i.e. 2 to 3 CODE_LOADs per function: the default
# makes a dump of more than 60,000 CODE_LOADs (checked; the count is printed).
# Prints wall time, CPU time (user + system), peak RSS and files written per
# tool, and the speed-ups; the goals are perftk >= 10x and --merge >= 50x
# faster than perf inject, and perftk's peak RSS under 100 MB for 60,000
# functions. perf inject's ~/.debug copies go to a private HOME in WORKDIR
# and are counted as files written. perftk runs twice: with its default
# --jobs (a second thread creates the .so files when there is more than one
# CPU) and with --jobs 1.
#
# File creation dominates, so the state of the file system matters: ext4
# without a journal skips the inodes freed in the last minutes when it
# allocates new ones, and after ~100k files were deleted creating files
# becomes many times slower for up to 6 minutes. So WORKDIR must be new or
# empty (nothing is deleted before measuring), the file system type and
# whether it has a journal are printed, and the work dir (some 250,000 files)
# is removed only with CLEANUP=1, after the measurements. How many CPUs were
# idle in the second before each run is printed: another busy process takes
# the second thread's CPU (then --jobs 2 is no faster than --jobs 1).
set -euo pipefail
PERFTK=$(realpath "${1:-build/src/perftk}")
FUNCTIONS=${2:-30000}
W=${3:-$(mktemp -d "${TMPDIR:-/tmp}/perftk-bench-jit.XXXXXX")}
mkdir -p "$W"
if [ -n "$(ls -A "$W")" ]; then
  echo "bench/jit.sh: $W is not empty; give a new work dir (deleting files right before" >&2
  echo "measuring slows file creation down on some file systems)" >&2
  exit 1
fi
cd "$W"

# The file system of the work dir, and for ext4 whether it has a journal
# (jbd2 lists the journaled devices).
read -r fs_source fs_type < <(findmnt -n -o SOURCE,FSTYPE --target "$W")
echo "work dir $W: $fs_type on $fs_source, $(nproc) CPUs"
if [ "$fs_type" = ext4 ] && ! ls /proc/fs/jbd2/ 2>/dev/null | grep "^$(basename "$fs_source")-" >/dev/null; then
  echo "WARNING: ext4 without a journal: file creation is much slower for ~6 minutes after many"
  echo "         files were deleted on it (rm -rf of an earlier work dir or build dir); measure"
  echo "         only when nothing was deleted in the last 6 minutes"
fi
cat >stress.js <<JS
const fns = [];
for (let i = 0; i < $FUNCTIONS; i++) fns.push(new Function('x', 'return x * ' + i + ' + ' + (i % 7) + ';'));
let s = 0;
for (let round = 0; round < 3; round++) for (const f of fns) s += f(round);
console.log('sum', s);
JS
node_flags=(--perf-prof --interpreted-frames-native-stack)
[ "${UNWINDING:-0}" = 1 ] && node_flags+=(--perf-prof-unwinding-info)
echo "node ${node_flags[*]}"
perf record -q -k 1 -e cpu-clock -o perf.data node "${node_flags[@]}" stress.js >/dev/null 2>record.err
dump=$(ls jit-*.dump)
echo "recording: $(stat -c %s perf.data) bytes; $dump: $(stat -c %s "$dump") bytes"

# How many CPUs are idle over the next second (/proc/stat: idle + iowait).
idle_cpus() {
  local before after
  before=$(awk '/^cpu /{ print $5 + $6, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat)
  sleep 1
  after=$(awk '/^cpu /{ print $5 + $6, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat)
  awk -v a="$before" -v b="$after" -v n="$(nproc)" 'BEGIN {
    split(a, x, " "); split(b, y, " ")
    printf "%.1f of %d", (y[2] > x[2]) ? n * (y[1] - x[1]) / (y[2] - x[2]) : 0, n }'
}

# measure NAME DIR_TO_COUNT COMMAND...: wall and CPU seconds, peak RSS (MB), files.
declare -A WALL CPU RSS FILES
measure() {
  local name=$1 count_dir=$2
  shift 2
  sync
  echo "$name: idle CPUs in the second before: $(idle_cpus)"
  /usr/bin/time -f '%e %U %S %M' -o "$name.time" "$@" >"$name.out" 2>"$name.err" ||
    { echo "$name failed:"; tail -3 "$name.err"; exit 1; }
  read -r wall user sys rss <"$name.time"
  WALL[$name]=$wall
  CPU[$name]=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
  RSS[$name]=$((rss / 1024))
  FILES[$name]=$(find $count_dir -type f -name '*.so' 2>/dev/null | wc -l)
}

mkdir perf-home ours ours-j1 merged floor
measure perf_inject ". perf-home" env HOME="$W/perf-home" perf inject --jit -i perf.data -o perf.jit.data
# The floor of one file per function: creating as many empty files as the
# dump has CODE_LOADs (as many as perf inject wrote beside it), with their
# names, in one directory, one after the other (the kernel creates the files
# of a directory one at a time, under its lock), and nothing else. In C when
# there is a compiler, else Python.
loads=$(find . -maxdepth 1 -name 'jitted-*.so' | wc -l)
prefix=$(basename "$dump" .dump | sed 's/^jit-/jitted-/')
if cc -O2 -x c -o create_only - 2>/dev/null <<'C'; then
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
int main(int argc, char** argv) {
  char path[4096];
  for (long i = 0; i < atol(argv[2]); i++) {
    snprintf(path, sizeof path, "%s/%s-%ld.so", argv[1], argv[3], i);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0 || close(fd) != 0) { perror(path); return 1; }
  }
  return 0;
}
C
  measure create_only floor ./create_only floor "$loads" "$prefix"
else
  measure create_only floor python3 -c '
import os, sys
for i in range(int(sys.argv[2])):
    os.close(os.open(f"{sys.argv[1]}/{sys.argv[3]}-{i}.so", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644))
' floor "$loads" "$prefix"
fi
measure perftk ours "$PERFTK" jit -i perf.data -o ours.data --jit-dir ours
measure perftk_jobs1 ours-j1 "$PERFTK" jit -i perf.data -o ours-j1.data --jit-dir ours-j1 --jobs 1
measure perftk_merge merged "$PERFTK" jit -i perf.data -o merged.data --jit-dir merged --merge
grep -h 'perftk jit:' perftk.err perftk_merge.err || true
loads=$(sed -nE 's/.* ([0-9]+) code loads.*/\1/p' perftk.err)
if diff -r ours ours-j1 >/dev/null; then
  echo ".so files of perftk jit and perftk jit --jobs 1: identical"
else
  echo ".so files of perftk jit and perftk jit --jobs 1: DIFFERENT"
fi
echo "CODE_LOADs in the dump: $loads"
[ "${loads:-0}" -ge 60000 ] || echo "note: fewer than 60,000 CODE_LOADs; raise FUNCTIONS for the issue's size"

# perf inject counts the files under its private ~/.debug too; ours are only ours.
FILES[perf_inject]=$(($(ls jitted-*.so | wc -l) + $(find perf-home -type f | wc -l)))
printf '\n%-14s %10s %10s %12s %14s\n' tool "wall (s)" "CPU (s)" "peak RSS MB" "files written"
for t in perf_inject perftk perftk_jobs1 perftk_merge create_only; do
  printf '%-14s %10s %10s %12s %14s\n' "$t" "${WALL[$t]}" "${CPU[$t]}" "${RSS[$t]}" "${FILES[$t]}"
done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b <= 0) b = 0.005; printf "%.1fx", a / b }'; }
echo
echo "speed-up perftk jit         vs perf inject --jit: $(ratio "${WALL[perf_inject]}" "${WALL[perftk]}") (goal 10x)"
echo "speed-up perftk jit --jobs 1 vs perf inject --jit: $(ratio "${WALL[perf_inject]}" "${WALL[perftk_jobs1]}")"
echo "create_only (creating $loads empty files in one dir, nothing else): the most one file per"
echo "  function can gain here is perf inject / create_only = $(ratio "${WALL[perf_inject]}" "${WALL[create_only]}")"
echo "speed-up perftk jit --merge vs perf inject --jit: $(ratio "${WALL[perf_inject]}" "${WALL[perftk_merge]}") (goal 50x)"
echo "CPU time ratio perftk / --merge vs perf inject: $(ratio "${CPU[perf_inject]}" "${CPU[perftk]}") / $(ratio "${CPU[perf_inject]}" "${CPU[perftk_merge]}")"
for t in perftk perftk_merge; do
  [ "${RSS[$t]}" -lt 100 ] && verdict=ok || verdict=OVER
  echo "peak RSS $t: ${RSS[$t]} MB (goal < 100 MB): $verdict"
done
if [ "${CLEANUP:-0}" = 1 ]; then
  cd /
  rm -rf "$W"
  echo "work dir $W removed (wait 6 minutes before measuring file creation on this file system)"
else
  echo "work dir: $W (remove it when done measuring; CLEANUP=1 does it at the end)"
fi
