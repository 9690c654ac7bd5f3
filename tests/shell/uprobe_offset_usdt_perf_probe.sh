#!/bin/bash
# uprobe-offset usdt:PROVIDER:NAME agrees with perf probe: after `perf
# buildid-cache --add BIN`, `perf probe -x BIN sdt_PROVIDER:NAME` writes one
# uprobe_events entry per site; their offsets and semaphore offsets
# (ref_ctr_offset) equal ours, and every argument perf writes is written the
# same by us (perf leaves out %rip-relative ones, which we express). Run on
# every probe of python3.11, libstdc++.so.6 and the x86_64 fixtures. perf
# uses a private build-id directory; every probe it adds is deleted again,
# even on failure. Exits 77 without root, perf or tracefs.
set -uo pipefail

PERFTK=${PERFTK:?set PERFTK to the perftk binary}
SRC=${PERFTK_SOURCE_DIR:?set PERFTK_SOURCE_DIR}
skip() { echo "SKIP: $*"; exit 77; }

source "$(dirname "$0")/lib/tracefs.bash"
require_tracefs "for perf probe"

work=$(mktemp -d /tmp/perftk-usdt-perf.XXXXXX)
mkdir -p "$work/buildid"
# Every sdt_* event of the binaries probed here ("-:GROUP/EVENT").
delete_events() {
  grep -o '^p:sdt_\(python\|libstdcxx\|perftk\)/[^ ]*' "$TRACEFS/uprobe_events" 2> /dev/null |
    sort -u | while read -r event; do echo "-:${event#p:}" >> "$TRACEFS/uprobe_events"; done
}
cleanup() {
  delete_events
  rm -rf "$work"
}
trap cleanup EXIT

bash "$SRC/tests/elf/fixtures/build.sh" "$work" > "$work/build.log" 2>&1 ||
  { cat "$work/build.log"; echo "FAIL: fixtures did not build"; exit 1; }
source "$(dirname "$0")/lib/checks.bash"

perf_() { perf --buildid-dir "$work/buildid" "$@"; }

# "0xOFFSET(0xREFCTR)" or "0xOFFSET" per site, numbers normalized, sorted.
sites_of() {
  sed -E 's/^[^ ]+ [^:]+:(0x[0-9a-f]+)(\((0x[0-9a-f]+)\))?.*/\1 \3/' |
    while read -r offset ref; do
      if [[ -n $ref ]]; then printf '0x%x(0x%x)\n' "$offset" "$ref"; else printf '0x%x\n' "$offset"; fi
    done | sort
}

# Arguments perf wrote that we write differently: "argN=X" of perf's lines
# absent from the line of ours for the same offset.
arguments_differ() {
  local perf_lines=$1 our_lines=$2 line offset
  while read -r line; do
    offset=$(sed -E 's/^[^ ]+ [^:]+:(0x[0-9a-f]+).*/\1/' <<< "$line")
    local ours
    ours=$(awk -v o="$(printf '0x%x' "$offset")" '{split($2, a, ":"); split(a[2], b, "("); if (b[1] == o) print}' "$our_lines")
    for argument in $(cut -d' ' -f3- <<< "$line"); do
      [[ " $ours " == *" $argument "* ]] || echo "$argument (ours: $ours)"
    done
  done < "$perf_lines"
}

# compare BINARY: every probe of BINARY through perf probe and through us.
compare() {
  local binary=$1
  if ! perf_ buildid-cache --add "$binary" > "$work/cache.log" 2>&1; then
    echo "FAIL: perf buildid-cache --add $binary: $(head -3 "$work/cache.log")"
    failures=$((failures + 1))
    return
  fi
  local probes
  probes=$("$PERFTK" uprobe-offset --list-usdt "$binary" | awk '{print $2}' | sort -u)
  [[ -n $probes ]] || { echo "FAIL: no probes listed in $binary"; failures=$((failures + 1)); return; }
  local probe
  for probe in $probes; do
    local provider=${probe%%:*} name=${probe#*:}
    delete_events
    if ! perf_ probe -q -x "$binary" -a "sdt_$provider:$name" > "$work/perf.log" 2>&1; then
      echo "FAIL: perf probe -x $binary sdt_$provider:$name: $(head -3 "$work/perf.log")"
      failures=$((failures + 1))
      continue
    fi
    grep "^p:sdt_$provider/$name " "$TRACEFS/uprobe_events" > "$work/perf.lines"
    delete_events
    "$PERFTK" uprobe-offset --all --format=uprobe-events "$binary" "usdt:$probe" \
      > "$work/our.lines" 2> "$work/our.err"
    check "$binary $probe: sites $(sites_of < "$work/our.lines" | tr '\n' ' ')equal perf probe's" \
      diff <(sites_of < "$work/perf.lines") <(sites_of < "$work/our.lines")
    check "$binary $probe: perf's arguments written alike" \
      bash -c '[[ -z $1 ]] || { echo "differ: $1"; false; }' _ \
      "$(arguments_differ "$work/perf.lines" "$work/our.lines")"
  done
}

compared=0
for binary in /usr/bin/python3.11 "$(readlink -f /usr/lib/x86_64-linux-gnu/libstdc++.so.6)" \
              "$work/u_x64" "$work/u_x64_O0" "$work/u_x64_nopie"; do
  [[ -f $binary ]] || { echo "note: $binary not there"; continue; }
  compare "$binary"
  compared=$((compared + 1))
done
[[ $compared -gt 0 ]] || skip "no binary with USDT probes"
checks_summary
