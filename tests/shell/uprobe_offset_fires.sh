#!/bin/bash
# uprobe-offset: a uprobe placed through tracefs at the offset perftk prints
# fires exactly as often as the fixture program calls the function (the
# program prints its call counts). Probes are always removed, even on failure.
# Needs root, tracefs and perf (for per-process counting); exits 77 otherwise.
set -uo pipefail

PERFTK=${PERFTK:?set PERFTK to the perftk binary}
SRC=${PERFTK_SOURCE_DIR:?set PERFTK_SOURCE_DIR}

source "$(dirname "$0")/lib/tracefs.bash"
require_tracefs "to write uprobe_events"

work=$(mktemp -d /tmp/perftk-uprobe-fires.XXXXXX)
added=()
cleanup() {
  for line in "${added[@]}"; do
    local event=${line%% *}
    event=${event#*:}
    echo "-:$event" >> "$TRACEFS/uprobe_events" 2> /dev/null
  done
  rm -rf "$work"
}
trap cleanup EXIT

bash "$SRC/tests/elf/fixtures/build.sh" "$work" > "$work/build.log" 2>&1 ||
  { cat "$work/build.log"; echo "FAIL: fixtures did not build"; exit 1; }

N=7
failures=0
checks=0

# probe BINARY GROUP "FUNC=EXPECTED ..." [perftk options...]
probe() {
  local binary=$1 group=$2 spec=$3
  shift 3
  local functions=() expected=() item
  for item in $spec; do
    functions+=("${item%%=*}")
    expected+=("${item#*=}")
  done
  local lines
  if ! lines=$("$PERFTK" uprobe-offset --format=uprobe-events --group "$group" "$@" \
                 "$work/$binary" "${functions[@]}" 2> "$work/err"); then
    echo "FAIL: $binary: perftk failed: $(cat "$work/err")"
    failures=$((failures + 1))
    return
  fi
  local events=() line
  while read -r line; do
    if ! echo "$line" >> "$TRACEFS/uprobe_events"; then
      echo "FAIL: $binary: kernel refused '$line'"
      failures=$((failures + 1))
      continue
    fi
    added+=("$line")
    local event=${line%% *}
    events+=("${event#*:}")
  done <<< "$lines"
  local perf_events=()
  for e in "${events[@]}"; do perf_events+=(-e "${e/\//:}"); done
  local out
  out=$(perf stat -x, "${perf_events[@]}" -- "$work/$binary" "$N" 2>&1 > "$work/stdout")
  local i
  for i in "${!events[@]}"; do
    local name=${events[$i]/\//:}
    # --all may give more events than names: they share the last expectation.
    local want=${expected[$i]:-${expected[-1]}}
    local function=${functions[$i]:-${functions[-1]}}
    want=${want//N/$N}
    want=$((want))
    local got
    got=$(echo "$out" | awk -F, -v ev="$name" '$3 == ev {print $1}')
    checks=$((checks + 1))
    if [[ $got != "$want" ]]; then
      echo "FAIL: $binary $function: uprobe fired '${got}' times, program calls it $want" \
           "times (event ${events[$i]}, $(grep -F "${events[$i]} " <<< "$lines"))"
      failures=$((failures + 1))
    else
      echo "ok: $binary $function fired $got times"
    fi
  done
}

base="global_fn=N weak_fn=N other_local=N main=1 malloc=N free=N"
for binary in t_pie t_nopie t_cetplt t_cetnow t_now t_rdyn; do
  probe "$binary" "pt_$binary" "$base"
done
probe t_static pt_t_static "global_fn=N weak_fn=N other_local=N main=1"
# Address taken in a PIE: calls through the pointer load libc's address from
# the GOT and bypass the stub; free is called directly in both loops.
probe t_addr pt_t_addr "global_fn=N malloc=N free=2*N"
# Canonical PLT (non-PIE, -fno-pic): the pointer is the stub itself.
probe t_canon pt_t_canon "global_fn=N malloc=2*N free=2*N"
if grep -q '^t_lld ' "$work/missing.txt"; then
  echo "note: lld fixtures not built: $(grep '^t_lld ' "$work/missing.txt")"
else
  probe t_lld pt_t_lld "$base"
  probe t_lld_nopie pt_t_lld_nopie "$base"
fi
probe t_strip pt_t_strip "global_fn=N main=1 other_local=N" --debug-dir "$work/debug"
probe t_link pt_t_link "global_fn=N main=1" --debug-dir "$work/no-debug"
probe t_mini pt_t_mini "global_fn=N main=1 other_local=N" --debug-dir "$work/no-debug"
probe t_pie pt_t_pie_all "local_fn=N" --all
# The functions themselves in libc.so.6: the program is their only caller.
probe t_pie pt_t_pie_libc "malloc=N free=N" --in-library
probe usev pt_usev "vfn=N"
LD_LIBRARY_PATH=$work probe usev pt_usev_lib "vfn=N lib_plain=N" --in-library

echo "$checks checks, $failures failures"
[[ $checks -gt 0 && $failures -eq 0 ]]
