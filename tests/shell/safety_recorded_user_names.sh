#!/usr/bin/env bash
# Files a recording names are never opened before their type is known
# (issue 30, D8): --buildid-all opened a FIFO reached through a name the
# recording chose ("DIR/sub/../fifo", "/proc/self/cwd/fifo") for reading
# before it checked what it was (opening some devices acts by itself), and
# it warned about every data mapping. A writer waiting on the FIFO tells:
# its open returns only if someone opens the FIFO for reading.
source "$(dirname "$0")/lib/common.bash"
source "$LIB_DIR/checks.bash"
source "$LIB_DIR/safety.bash"
require_perf
perf record -q -e cpu-clock -o - -- true >in.data 2>/dev/null || skip "perf record -o - failed"
RUN_TIMEOUT=20
mkfifo fifo
mkdir sub
cp in.data names.data
for name in "$WORK/sub/../fifo" "/proc/self/cwd/fifo"; do
  set +e
  python3 "$LIB_DIR/append_kernel_sample.py" names.data "$name" user
  appended=$?
  set -e
  [ "$appended" != 2 ] || skip "perf's sample_type has fields the script does not write"
  [ "$appended" = 0 ] || fail "append_kernel_sample.py failed"
done
python3 "$LIB_DIR/append_kernel_sample.py" names.data /etc/hostname user-data

# The waiting writer: it writes "opened" once a reader has opened the FIFO.
(exec 3>fifo && echo opened >opened.txt) &
writer=$!
run "$PERFTK" copy --buildid-all -i names.data -o out.data
check "copy --buildid-all: exit 0 (got $rc: $(last_error))" test "$rc" = 0
check "the name with '..' is refused ($(last_error))" err_has "sub/\.\./fifo.*'\.\.' component: refused"
check "the FIFO reached by a link is named as one ($(last_error))" \
  err_has "/proc/self/cwd/fifo is a FIFO, not a regular file"
check "no warning for the data mapping" bash -c "! grep -q hostname '$WORK/err.txt'"
sleep 0.2
check "the FIFO was never opened for reading" test ! -e opened.txt
kill "$writer" 2>/dev/null || true
checks_summary
