#!/usr/bin/env bash
# uprobe-offset checks its writes to stdout (issue 15, item 5): into
# /dev/full (only ever written to here) the plain answer, --json,
# --format=uprobe-events and --list exit 1 with the system's reason.
source "$(dirname "$0")/lib/common.bash"
source "$LIB_DIR/checks.bash"
source "$LIB_DIR/safety.bash"
[ -w /dev/full ] || skip "no /dev/full"
build_workload
[ "$("$PERFTK" uprobe-offset workload main)" != "" ] || fail "uprobe-offset workload main printed nothing"

for options in "" "--json" "--format=uprobe-events" "--list"; do
  names=main
  [ "$options" = --list ] && names=
  run "$PERFTK" uprobe-offset $options workload $names >/dev/full
  check "uprobe-offset $options > /dev/full: exit 1 (got $rc)" test "$rc" = 1
  check "uprobe-offset $options > /dev/full: the reason ($(last_error))" err_has "No space left on device"
done
checks_summary
