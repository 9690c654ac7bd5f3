# Shared by tests/shell/uprobe_offset_*.sh. Sourced after common.bash, never run.
#   build_fixtures          tests/elf/fixtures/build.sh into $WORK (what it
#                           could not build is listed in $WORK/missing.txt)
#   run ARGS...             perftk uprobe-offset ARGS: sets out, err and rc
#   require_tracefs WHY     skips unless root, perf and a writable
#                           uprobe_events are here; sets TRACEFS
#   uprobe_add LINE         writes LINE to uprobe_events; its event is
#                           removed at exit, even on failure
#   uprobe_delete_group RE  removes every event of the groups matching RE
#                           (grep -E, whole group name), whoever added them
#   uprobe_remove GROUP/EVENT...  removes those events; waits 2 s at most
#                           for busy ones (a perf run still has them open)
# Scripts that define events must not run at the same time as each other:
# tests/CMakeLists.txt gives them one RESOURCE_LOCK.

build_fixtures() {
  bash "$LIB_DIR/../../elf/fixtures/build.sh" "$WORK" >"$WORK/build.log" 2>&1 ||
    { cat "$WORK/build.log" >&2; fail "fixtures did not build"; }
}

# shellcheck disable=SC2034 # out, err and rc are for the caller
run() {
  rc=0
  out=$("$PERFTK" uprobe-offset "$@" 2>"$WORK/stderr") || rc=$?
  err=$(<"$WORK/stderr")
}

# tracefs is mounted if needed and left mounted: another test may be using
# it concurrently.
require_tracefs() {
  local why=$1
  [[ $(id -u) == 0 ]] || skip "needs root $why"
  command -v perf >/dev/null || skip "perf not installed (Debian: linux-perf)"
  TRACEFS=/sys/kernel/tracing
  if [[ ! -e $TRACEFS/uprobe_events ]]; then
    mount -t tracefs nodev "$TRACEFS" 2>/dev/null || true
  fi
  [[ -w $TRACEFS/uprobe_events ]] ||
    skip "no writable $TRACEFS/uprobe_events (tracefs/CONFIG_UPROBE_EVENTS)"
  at_exit uprobe_remove_added
}

# The kernel's refusal (bash's "write error: ...") goes to $WORK/uprobe_add.err;
# returns 1 then.
UPROBE_ADDED=()
uprobe_add() {
  local line=$1 event=${1%% *}
  echo "$line" 2>"$WORK/uprobe_add.err" >>"$TRACEFS/uprobe_events" || return 1
  UPROBE_ADDED+=("${event#*:}")
}

# The events uprobe_add added and still defined.
uprobe_remove_added() { uprobe_remove "${UPROBE_ADDED[@]}"; }

uprobe_delete_group() {
  local events
  events=$(grep -oE "^[pr]:($1)/[^ ]+" "$TRACEFS/uprobe_events" | cut -d: -f2 | sort -u) || true
  # shellcheck disable=SC2086 # one GROUP/EVENT a word
  uprobe_remove $events
}

# uprobe_remove GROUP/EVENT...: deletes those still defined. An event a perf
# run still has open is busy (a signal may end the script while its perf
# runs on): tried again for 2 s, then left with a note, and returns 1.
uprobe_remove() {
  local try event busy
  for try in {1..20}; do
    busy=()
    for event in "$@"; do
      has -E "^[pr]:$event " "$TRACEFS/uprobe_events" || continue
      echo "-:$event" 2>/dev/null >>"$TRACEFS/uprobe_events" || busy+=("$event")
    done
    [[ ${#busy[@]} -gt 0 ]] || return 0
    set -- "${busy[@]}"
    sleep 0.1
  done
  echo "note: still in use after $try tries, left in uprobe_events: $*" >&2
  return 1
}
