#!/usr/bin/env bash
# A reader that closes the pipe early ends perftk as it ends coreutils
# (issue 32; issue 15 made it a clean write error first): `perftk ... |
# head -c 100` with an output far bigger than a pipe buffer -- copy, aslr,
# jit, cs-etm-decode (perf.data and script to stdout), dump, uprobe-offset
# --list of libc -- cleans up (jit leaves no .so) and dies by SIGPIPE,
# status 141 for `set -o pipefail`, with nothing on stderr. Where SIGPIPE is
# ignored when perftk starts, the parent asked for EPIPE: then the status
# is 1, with a message naming the pipe.
source "$(dirname "$0")/lib/common.bash"
source "$LIB_DIR/checks.bash"
source "$LIB_DIR/safety.bash"
prepare_writers 2000
libc=$(ldd "$(command -v ls)" | awk '/libc\.so/ { print $3 }')
[ -r "$libc" ] || skip "no libc found by ldd"

# closes_early WHAT CMD...: CMD's output is over 3 pipe buffers, and with its reader
# gone after 100 bytes CMD ends by SIGPIPE, silently; with SIGPIPE ignored,
# with 1 and a message.
closes_early() {
  local what=$1 size
  shift
  size=$(timeout "$RUN_TIMEOUT" "$@" 2>/dev/null | wc -c)
  check "$what: the whole output is far bigger than a pipe buffer ($size bytes)" test "$size" -gt $((3 * 65536))
  find jd -type f -delete 2>/dev/null || true
  set +e
  timeout "$RUN_TIMEOUT" "$@" 2>"$WORK/err.txt" | head -c 100 >/dev/null
  rc=${PIPESTATUS[0]}
  set -e
  check "$what | head -c 100: status 141, SIGPIPE (got $rc)" test "$rc" = 141
  check "$what | head -c 100: nothing on stderr ($(last_error))" test ! -s "$WORK/err.txt"
  if [ "$what" = jit ]; then
    check "jit: no .so left after the pipe closed ($(find jd -type f | wc -l) left)" nothing_but_dirs_in jd
  fi
  find jd -type f -delete 2>/dev/null || true
  set +e
  (
    trap '' PIPE
    timeout "$RUN_TIMEOUT" "$@" 2>"$WORK/err.txt" | head -c 100 >/dev/null
    exit "${PIPESTATUS[0]}"
  )
  rc=$?
  set -e
  check "$what | head -c 100, SIGPIPE ignored: status 1 (got $rc)" test "$rc" = 1
  check "$what | head -c 100, SIGPIPE ignored: a message about the pipe ($(last_error))" err_has 'pipe'
}

for name in "${WRITER_NAMES[@]}"; do
  read -ra args <<<"${WRITERS[$name]}"
  if is_text_writer "$name"; then
    closes_early "$name" "$PERFTK" "${args[@]}"
  else
    closes_early "$name" "$PERFTK" "${args[@]}" -o -
  fi
  if [ "$name" = jit ]; then
    check "jit: no .so left after the pipe closed ($(find jd -type f | wc -l) left)" nothing_but_dirs_in jd
  fi
done
closes_early "dump" "$PERFTK" dump -i in.data
closes_early "uprobe-offset --list libc" "$PERFTK" uprobe-offset --list "$libc"
checks_summary
