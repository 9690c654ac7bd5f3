# Root, perf and a writable uprobe_events for tests/shell scripts that add
# uprobes. Sourced, never run.
#   require_tracefs WHY   exits 77 (skip) unless all are there; sets TRACEFS
# tracefs is mounted if needed and left mounted: another test may be using
# it concurrently.
require_tracefs() {
  local why=$1
  [[ $(id -u) == 0 ]] || { echo "SKIP: needs root $why"; exit 77; }
  command -v perf > /dev/null || { echo "SKIP: perf not installed (Debian: linux-perf)"; exit 77; }
  TRACEFS=/sys/kernel/tracing
  if [[ ! -e $TRACEFS/uprobe_events ]]; then
    mount -t tracefs nodev "$TRACEFS" 2> /dev/null
  fi
  [[ -w $TRACEFS/uprobe_events ]] ||
    { echo "SKIP: no writable $TRACEFS/uprobe_events (tracefs/CONFIG_UPROBE_EVENTS)"; exit 77; }
}
