#!/usr/bin/env bash
# Benchmark (not a test): cs-etm-decode from a pipe against the same
# recording from a file (issue 29: a recording turned into a profile while
# it is made, at the file's speed, in memory that does not grow with the
# trace). For each work directory kept by bench/cs_etm_qemu.sh (KEEP=1), the
# recording is copied to the pipe layout (perftk copy --pipe) and decoded,
# --format=autofdo and --itrace=il64 --format=script, from the file and from
# `cat pipe.data |`: wall time, MB/s, peak RSS (bench/measure.py: medians of
# REPEAT runs), whether the pipe's output is the file's, and the pipe's
# speed as a share of the file's. With two directories, it also prints how
# the pipe's peak RSS grew against how the trace grew.
#
#   N=24 KEEP=1 bench/cs_etm_qemu.sh; N=30 KEEP=1 bench/cs_etm_qemu.sh
#   bench/cs_etm_pipe.sh /tmp/perftk-etm-qemu-bench.SHORT /tmp/perftk-etm-qemu-bench.LONG
# Env: PERFTK (binary), REPEAT (default 3).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
PERFTK=${PERFTK:-$here/../build/src/perftk}
[ -x "$PERFTK" ] || { echo "missing $PERFTK (ninja -C build perftk)" >&2; exit 1; }
[ $# -ge 1 ] || { echo "usage: $0 WORKDIR [WORKDIR2] (kept by bench/cs_etm_qemu.sh)" >&2; exit 2; }
measure() { python3 "$here/measure.py" "${REPEAT:-3}" "$@"; }

printf '%-46s %9s %7s %14s  %s\n' decode "wall (s)" "MB/s" "peak RSS (KB)" output
declare -A RSS MB
for dir in "$@"; do
  work=$(cd "$dir" && pwd)
  mb=$(sed -nE 's/.* ([0-9.]+) MB of trace.*/\1/p' "$work/recorder.out")
  MB[$work]=$mb
  "$PERFTK" copy -q -i "$work/perf.data" -o "$work/pipe.data" --pipe
  for spec in "autofdo:--format=autofdo --jobs 1" "il64:--itrace=il64 --format=script --jobs 1"; do
    name=${spec%%:*}
    read -ra flags <<<"${spec#*:}"
    "$PERFTK" cs-etm-decode -q -i "$work/perf.data" "${flags[@]}" -o "$work/file.$name"
    "$PERFTK" cs-etm-decode -q -i - "${flags[@]}" -o "$work/pipe.$name" <"$work/pipe.data"
    same=DIFFERS
    cmp -s "$work/file.$name" "$work/pipe.$name" && same="equal"
    result=$(measure "$PERFTK" cs-etm-decode -q -i "$work/perf.data" "${flags[@]}" -o /dev/null)
    read -r file_wall _ file_rss _ <<<"$result"
    # shellcheck disable=SC2016 # expanded by the inner bash
    result=$(measure bash -c 'cat "$1" | "$2" cs-etm-decode -q -i - "${@:3}" -o /dev/null' \
      bash "$work/pipe.data" "$PERFTK" "${flags[@]}")
    read -r pipe_wall _ pipe_rss _ <<<"$result"
    awk -v n="$name file, $mb MB" -v w="$file_wall" -v r="$file_rss" -v mb="$mb" \
      'BEGIN { printf "%-46s %9.2f %7.1f %14d\n", n, w, mb / w, r }'
    awk -v n="$name pipe, $mb MB" -v w="$pipe_wall" -v r="$pipe_rss" -v mb="$mb" -v s="$same" \
      -v f="$file_wall" 'BEGIN { printf "%-46s %9.2f %7.1f %14d  %s to the file'"'"'s; %.0f%% of its speed\n",
        n, w, mb / w, r, s, 100 * f / w }'
    RSS[$work.$name]=$pipe_rss
  done
  rm -f "$work/pipe.data"
done
if [ $# -ge 2 ]; then
  short=$(cd "$1" && pwd)
  long=$(cd "$2" && pwd)
  for name in autofdo il64; do
    awk -v a="${RSS[$short.$name]}" -v b="${RSS[$long.$name]}" -v ma="${MB[$short]}" \
      -v mb="${MB[$long]}" -v n="$name" \
      'BEGIN { printf "%s from a pipe: trace %.1fx longer, peak RSS %.2fx\n", n, mb / ma, b / a }'
  done
fi
