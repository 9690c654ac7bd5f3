#!/bin/bash
# uprobe-offset: a uprobe placed through tracefs at the offset perftk prints
# fires exactly as often as the fixture program calls the function (the
# program prints its call counts). Probes are always removed, even on failure.
# Needs root, tracefs and perf (for per-process counting); exits 77 otherwise.
source "$(dirname "$0")/lib/common.bash"
# shellcheck source=lib/checks.bash
source "$LIB_DIR/checks.bash"
# shellcheck source=lib/uprobe.bash
source "$LIB_DIR/uprobe.bash"
require_tracefs "to write uprobe_events"
build_fixtures

N=7

# calls_match GOT WANT DETAIL: the uprobe fired GOT times, as often as the
# program calls the function (WANT); says so with DETAIL otherwise.
calls_match() {
  [[ $1 == "$2" ]] || { echo "  uprobe fired '$1' times, program calls it $2 times ($3)"; false; }
}

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
                 "$WORK/$binary" "${functions[@]}" 2> "$WORK/err"); then
    check "$binary: perftk prints the uprobe_events lines ($(cat "$WORK/err"))" false
    return
  fi
  local events=() line
  while read -r line; do
    if ! uprobe_add "$line"; then
      check "$binary: kernel accepts '$line' ($(cat "$WORK/uprobe_add.err"))" false
      continue
    fi
    local event=${line%% *}
    events+=("${event#*:}")
  done <<< "$lines"
  local perf_events=() e
  for e in "${events[@]}"; do perf_events+=(-e "${e/\//:}"); done
  # The counts below decide: a failing perf stat leaves them empty.
  local out
  out=$(perf stat -x, "${perf_events[@]}" -- "$WORK/$binary" "$N" 2>&1 > "$WORK/stdout") || true
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
    check "$binary $function fired $got times" \
      calls_match "$got" "$want" "event ${events[$i]}, $(grep -F "${events[$i]} " <<< "$lines")"
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
if grep -q '^t_lld ' "$WORK/missing.txt"; then
  echo "note: lld fixtures not built: $(grep '^t_lld ' "$WORK/missing.txt")"
else
  probe t_lld pt_t_lld "$base"
  probe t_lld_nopie pt_t_lld_nopie "$base"
fi
probe t_strip pt_t_strip "global_fn=N main=1 other_local=N" --debug-dir "$WORK/debug"
probe t_link pt_t_link "global_fn=N main=1" --debug-dir "$WORK/no-debug"
probe t_mini pt_t_mini "global_fn=N main=1 other_local=N" --debug-dir "$WORK/no-debug"
probe t_pie pt_t_pie_all "local_fn=N" --all
# The functions themselves in libc.so.6: the program is their only caller.
probe t_pie pt_t_pie_libc "malloc=N free=N" --in-library
probe usev pt_usev "vfn=N"
LD_LIBRARY_PATH=$WORK probe usev pt_usev_lib "vfn=N lib_plain=N" --in-library

[[ $checks -gt 0 ]] || fail "no probe was checked"
checks_summary
