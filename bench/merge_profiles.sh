#!/usr/bin/env bash
# Benchmark: perftk merge-profiles over 100 and 1,000 copies of a generated
# AutoFDO text (and of a BOLT text), wall time and peak RSS. Memory must be
# bounded by the merged profile (its distinct binaries, ranges, branches),
# not by the number of inputs: the RSS ratio 1,000 / 100 inputs is printed
# and should stay near 1.
#   bench/merge_profiles.sh [RANGES]   # RANGES per binary, default 5000
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
PERFTK=${PERFTK:-$here/../build/src/perftk}
RANGES=${1:-5000}
work=$(mktemp -d "${TMPDIR:-/tmp}/perftk-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"

# An AutoFDO text of 3 binaries with RANGES ranges and RANGES branches each,
# and a BOLT text of one binary with as many lines.
awk -v n="$RANGES" 'BEGIN {
  for (b = 0; b < 3; b++) {
    print n; for (i = 0; i < n; i++) printf "%x-%x:%d\n", 16 * i, 16 * i + 12, i % 1000 + 1
    print 0
    print n; for (i = 0; i < n; i++) printf "%x->%x:%d\n", 16 * i + 12, (16 * i * 7) % (16 * n), i % 97 + 1
    printf "// build_id: 0x%040x\n// /usr/bin/prog%d\n\n", b + 1, b
  } }' >gen.afdo
awk -v n="$RANGES" 'BEGIN {
  printf "F %040x:%x %x %d\n", 1, 0, 12, 1
  for (i = 1; i < n; i++) printf "F %x %x %d\n", 16 * i, 16 * i + 12, i % 1000 + 1
  for (i = 0; i < n; i++) printf "B %x %x %d 0\n", 16 * i + 12, (16 * i * 7) % (16 * n), i % 97 + 1
  }' >gen.pa
mkdir in
for i in $(seq 1000); do
  cp gen.afdo "in/$i.afdo"
  cp gen.pa "in/$i.pa"
done
for ext in afdo pa; do
  ls in/*.$ext >list1000.$ext
  head -100 list1000.$ext >list100.$ext
done

# prints "seconds max_rss_kb"
measure() { /usr/bin/time -f "%e %M" "$@" 2>&1 >/dev/null | tail -1; }

printf 'input: %s AutoFDO text, %s BOLT text (x1,000 copies: %s)\n' \
  "$(du -h gen.afdo | cut -f1)" "$(du -h gen.pa | cut -f1)" "$(du -sh in | cut -f1)"
for ext in afdo pa; do
  read -r t100 m100 < <(measure "$PERFTK" merge-profiles -q -o out100.$ext @list100.$ext)
  read -r t1000 m1000 < <(measure "$PERFTK" merge-profiles -q -o out1000.$ext @list1000.$ext)
  # The sum must be 1,000 x the input (its first range count).
  first=$(awk -F: 'NR == 2 { print $2 }' gen.afdo)
  if [ $ext = afdo ]; then
    got=$(awk -F: 'NR == 2 { print $2 }' out1000.afdo)
  else
    first=$(awk 'NR == 2 { print $4 }' gen.pa)
    got=$(awk 'NR == 2 { print $4 }' out1000.pa)
  fi
  [ "$got" -eq $((first * 1000)) ] || { echo "wrong sum: $got, not 1000 x $first" >&2; exit 1; }
  lines=$(wc -l <gen.$ext)
  printf '%-4s 100 inputs: %6.2f s %7d KB RSS | 1,000 inputs: %6.2f s %7d KB RSS | RSS ratio %.2f; %.1f M lines/s\n' \
    "$ext" "$t100" "$m100" "$t1000" "$m1000" "$(awk "BEGIN{print $m1000 / $m100}")" \
    "$(awk "BEGIN{print $lines * 1000 / $t1000 / 1e6}")"
done
