#!/usr/bin/env bash
# A recording names the kernel modules its samples fell in, and build-id
# lookup reads /sys/module/NAME/notes/.note.gnu.build-id for them (issue 30,
# D1). A crafted module name "[../../DIR]" made that path leave /sys/module,
# and the notes file was read with a blocking, unbounded read: a FIFO there
# hung `perftk aslr` forever, a link to /dev/zero ate all memory. Plain aslr
# is enough (build ids are on by default) when the recording claims this
# machine's host name and kernel release, as a pipe recording made here does.
# Now such a name is refused with a warning that names it, nothing under it
# is opened, and the run ends with exit 0 and its output.
source "$(dirname "$0")/lib/common.bash"
source "$LIB_DIR/checks.bash"
source "$LIB_DIR/safety.bash"
require_perf
perf record -q -e cpu-clock -o - -- true >in.data 2>/dev/null || skip "perf record -o - failed"
RUN_TIMEOUT=20

mkdir -p fifo/notes zero/notes
mkfifo fifo/notes/.note.gnu.build-id
ln -s /dev/zero zero/notes/.note.gnu.build-id
for kind in fifo zero; do
  cp in.data $kind.data
  set +e
  python3 "$LIB_DIR/append_kernel_sample.py" $kind.data "[../..$WORK/$kind]"
  appended=$?
  set -e
  [ "$appended" != 2 ] || skip "perf's sample_type has fields the script does not write"
  [ "$appended" = 0 ] || fail "append_kernel_sample.py failed"
  # Memory capped, so that the old memory bomb fails fast rather than
  # taking the machine (an ASan build reserves terabytes: no cap there).
  if asan_build; then cap=unlimited; else cap=$((2 * 1024 * 1024)); fi
  run bash -c 'ulimit -v "$1"; shift; exec "$@"' _ "$cap" "$PERFTK" aslr -i $kind.data -o $kind.out
  check "module notes that are $kind: no hang, exit 0 (got $rc: $(last_error))" test "$rc" = 0
  check "module notes that are $kind: the name is refused with a warning ($(last_error))" \
    err_has "\.\./\.\.$WORK/$kind.*'\.\.' component: refused"
  check "module notes that are $kind: the output is written" test -s $kind.out
done
check "the FIFO is still a FIFO" test -p fifo/notes/.note.gnu.build-id
checks_summary
