#!/bin/bash
# uprobe-offset usdt:PROVIDER:NAME agrees with perf probe: after `perf
# buildid-cache --add BIN`, `perf probe -x BIN sdt_PROVIDER:NAME` writes one
# uprobe_events entry per site; their offsets and semaphore offsets
# (ref_ctr_offset) equal ours, and every argument perf writes is written the
# same by us (perf leaves out %rip-relative ones, which we express). Run on
# every probe of python3.11, libstdc++.so.6 and the x86_64 fixtures. perf
# uses a private build-id directory; every probe it adds is deleted again,
# even on failure. Exits 77 without root, perf or tracefs.
# shellcheck disable=SC2016 # the bash -c '...' check expands its own "$1"
source "$(dirname "$0")/lib/common.bash"
# shellcheck source=lib/checks.bash
source "$LIB_DIR/checks.bash"
# shellcheck source=lib/uprobe.bash
source "$LIB_DIR/uprobe.bash"
require_tracefs "for perf probe"

mkdir -p "$WORK/buildid"
# Every sdt_* event of the binaries probed here ("-:GROUP/EVENT").
delete_events() { uprobe_delete_group 'sdt_(python|libstdcxx|perftk)'; }
at_exit delete_events
build_fixtures

perf_() { perf --buildid-dir "$WORK/buildid" "$@"; }

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
  local perf_lines=$1 our_lines=$2 line offset fields argument
  while read -r line; do
    offset=$(sed -E 's/^[^ ]+ [^:]+:(0x[0-9a-f]+).*/\1/' <<< "$line")
    local ours
    ours=$(awk -v o="$(printf '0x%x' "$offset")" '{split($2, a, ":"); split(a[2], b, "("); if (b[1] == o) print}' "$our_lines")
    read -ra fields <<< "$line"
    for argument in "${fields[@]:2}"; do
      [[ " $ours " == *" $argument "* ]] || echo "$argument (ours: $ours)"
    done
  done < "$perf_lines"
}

# compare BINARY: every probe of BINARY through perf probe and through us.
compare() {
  local binary=$1
  if ! perf_ buildid-cache --add "$binary" > "$WORK/cache.log" 2>&1; then
    check "perf buildid-cache --add $binary: $(head -3 "$WORK/cache.log")" false
    return
  fi
  local probes
  probes=$("$PERFTK" uprobe-offset --list-usdt "$binary" | awk '{print $2}' | sort -u) || true
  [[ -n $probes ]] || { check "probes listed in $binary" false; return; }
  local probe
  for probe in $probes; do
    local provider=${probe%%:*} name=${probe#*:}
    delete_events
    if ! perf_ probe -q -x "$binary" -a "sdt_$provider:$name" > "$WORK/perf.log" 2>&1; then
      check "perf probe -x $binary sdt_$provider:$name: $(head -3 "$WORK/perf.log")" false
      continue
    fi
    # The checks below judge the lists, empty ones included.
    grep "^p:sdt_$provider/$name " "$TRACEFS/uprobe_events" > "$WORK/perf.lines" || true
    delete_events
    "$PERFTK" uprobe-offset --all --format=uprobe-events "$binary" "usdt:$probe" \
      > "$WORK/our.lines" 2> "$WORK/our.err" || true
    check "$binary $probe: sites $(sites_of < "$WORK/our.lines" | tr '\n' ' ')equal perf probe's" \
      diff <(sites_of < "$WORK/perf.lines") <(sites_of < "$WORK/our.lines")
    check "$binary $probe: perf's arguments written alike" \
      bash -c '[[ -z $1 ]] || { echo "differ: $1"; false; }' _ \
      "$(arguments_differ "$WORK/perf.lines" "$WORK/our.lines")"
  done
}

compared=0
for binary in /usr/bin/python3.11 "$(readlink -f /usr/lib/x86_64-linux-gnu/libstdc++.so.6)" \
              "$WORK/u_x64" "$WORK/u_x64_O0" "$WORK/u_x64_nopie"; do
  [[ -f $binary ]] || { echo "note: $binary not there"; continue; }
  compare "$binary"
  compared=$((compared + 1))
done
[[ $compared -gt 0 ]] || skip "no binary with USDT probes"
checks_summary
