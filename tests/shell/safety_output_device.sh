#!/usr/bin/env bash
# -o naming a character device is written in place, never replaced (issue
# 15, item 1): on private copies of /dev/null and /dev/full (mknod in the
# work dir), copy, aslr, jit and cs-etm-decode (perf.data and text) exit 0
# into null, and 1 into full with the path and the system's reason; the
# nodes stay devices and no OUT.tmp.* is left beside them.
source "$(dirname "$0")/lib/common.bash"
source "$LIB_DIR/checks.bash"
source "$LIB_DIR/safety.bash"
mkdir dev
make_devices dev
prepare_writers 200
no_space_message() { err_has "$1" && err_has "No space left on device"; }

for name in "${WRITER_NAMES[@]}"; do
  read -ra args <<<"${WRITERS[$name]}"
  run "$PERFTK" "${args[@]}" -o dev/null
  check "$name -o null: exit 0 (got $rc: $(last_error))" test "$rc" = 0
  check "$name -o null: still a character device" test -c dev/null
  run "$PERFTK" "${args[@]}" -o dev/full
  check "$name -o full: exit 1 (got $rc)" test "$rc" = 1
  check "$name -o full: message names dev/full and ENOSPC ($(last_error))" no_space_message dev/full
  check "$name -o full: still a character device" test -c dev/full
  check "$name: no temporary file beside the devices ($(temps_in dev))" no_temps_in dev
  rm -f dev/*.tmp.*
  [ -c dev/null ] || { rm -f dev/null; mknod dev/null c 1 3; }
  [ -c dev/full ] || { rm -f dev/full; mknod dev/full c 1 7; }
done
checks_summary
