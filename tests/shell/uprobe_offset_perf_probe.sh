#!/bin/bash
# uprobe-offset agrees with `perf probe -x BIN FUNC` wherever perf probe
# succeeds: the offset perf registers in uprobe_events equals ours. perf runs
# with an empty --buildid-dir so no cached copy of a binary is used. Every
# probe perf adds is deleted again, even on failure. Exits 77 without root,
# perf or tracefs.
set -uo pipefail

PERFTK=${PERFTK:?set PERFTK to the perftk binary}
SRC=${PERFTK_SOURCE_DIR:?set PERFTK_SOURCE_DIR}

source "$(dirname "$0")/lib/tracefs.bash"
require_tracefs "for perf probe"

work=$(mktemp -d /tmp/perftk-uprobe-perf.XXXXXX)
mkdir -p "$work/buildid"
cleanup() {
  grep -o '^[pr]:perftk_cmp[^ ]*' "$TRACEFS/uprobe_events" 2> /dev/null |
    while read -r event; do echo "-:${event#*:}" >> "$TRACEFS/uprobe_events"; done
  rm -rf "$work"
}
trap cleanup EXIT

bash "$SRC/tests/elf/fixtures/build.sh" "$work" > "$work/build.log" 2>&1 ||
  { cat "$work/build.log"; echo "FAIL: fixtures did not build"; exit 1; }

# Hex numbers of any width -> sorted decimal list on one line.
normalize() { while read -r x; do printf '%d\n' "$x"; done | sort -n | tr '\n' ' '; }

failures=0
compared=0
n=0
# compare FILE FUNC [perftk options]: perf probe's offset for FUNC vs ours.
compare() {
  local file=$1 func=$2
  shift 2
  n=$((n + 1))
  local event="perftk_cmp/f$n"
  if ! perf --buildid-dir "$work/buildid" probe -q -x "$file" -a "perftk_cmp:f$n=$func" \
       > "$work/perf.log" 2>&1; then
    echo "note: perf probe cannot probe $func in $file: $(head -1 "$work/perf.log")"
    return
  fi
  local perf_offsets
  perf_offsets=$(grep "^p:$event " "$TRACEFS/uprobe_events" | sed 's/.*:\(0x[0-9a-f]*\).*/\1/' |
                 normalize)
  echo "-:$event" >> "$TRACEFS/uprobe_events"
  local ours
  if ! ours=$("$PERFTK" uprobe-offset "$@" "$file" "$func" 2> "$work/err"); then
    echo "FAIL: perf probe resolved $func in $file to $perf_offsets, perftk failed: $(cat "$work/err")"
    failures=$((failures + 1))
    return
  fi
  ours=$(echo "$ours" | awk '{print $NF}' | normalize)
  compared=$((compared + 1))
  if [[ $ours != "$perf_offsets" ]]; then
    echo "FAIL: $file $func: perf probe registered '$perf_offsets', perftk says '$ours'"
    failures=$((failures + 1))
  else
    echo "ok: $file $func = $ours"
  fi
}

for binary in t_pie t_nopie t_static t_cetplt t_lld t_lld_nopie; do
  [[ -e $work/$binary ]] || continue
  for func in global_fn weak_fn other_local main; do compare "$work/$binary" "$func"; done
done
# perf probe puts a multi-location probe on both static local_fn.
compare "$work/t_pie" local_fn --all
compare "$work/libv.so" lib_plain
compare "$work/libv_based.so" lib_plain
LIBC=/usr/lib/x86_64-linux-gnu/libc.so.6
if [[ -e $LIBC ]]; then
  compare "$LIBC" malloc
  compare "$LIBC" free
fi

echo "$compared compared, $failures failures"
[[ $compared -gt 0 && $failures -eq 0 ]]
