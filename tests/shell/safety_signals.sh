#!/usr/bin/env bash
# Signals beyond INT/TERM/HUP, signals ignored at start, a file limit, and
# an input that shrinks during the run (issue 26, D7 and D9):
#  - SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM and SIGXFSZ sent mid-run end it with
#    128+signal and leave no *.tmp.* file (they left 10-236 MB ones);
#  - under nohup a SIGHUP, and in a background job (SIGINT ignored) a
#    SIGINT, do not stop the run: it finishes, exit 0, output complete (it
#    died of them: 129, 130);
#  - past `ulimit -f` the write fails: exit 1, a message, no file left;
#  - an input truncated during the run (a read of its mapping past the new
#    end is a SIGBUS) is named with the offset, the run ends by SIGBUS and
#    leaves no temporary file.
source "$(dirname "$0")/lib/common.bash"
source "$LIB_DIR/checks.bash"
source "$LIB_DIR/safety.bash"
require_perf
ulimit -c 0  # SIGQUIT dumps core by default
build_workload
perf record -q -F 20000 -g -e cpu-clock -o - -- ./workload 1000 1 2>/dev/null >in.pipe ||
  skip "perf record -o - failed"
input_sha=$(sha_of in.pipe)
"$PERFTK" copy -i in.pipe -o expected.data

# Background jobs of a script start with SIGINT and SIGQUIT ignored: env
# gives them back their default, as a user's own shell would.
for sig in QUIT USR1 USR2 ALRM XFSZ; do
  trickle in.pipe 10 0.3 | env --default-signal=INT,QUIT "$PERFTK" copy -i - -o out.data \
    2>err.txt &
  interrupt $! $sig 1.0
  check_ended_by "copy, SIG$sig after 1 s" $sig out.data
done

# Ignored at start: stays ignored.
trickle in.pipe 6 0.3 | nohup "$PERFTK" copy -i - -o out.data >/dev/null 2>err.txt &
interrupt $! HUP 0.8
check "nohup copy, SIGHUP after 0.8 s: exit 0 (got $job_rc)" test "$job_rc" = 0
check "nohup copy, SIGHUP: the output is complete" cmp -s out.data expected.data
rm -f out.data
trickle in.pipe 6 0.3 | "$PERFTK" copy -i - -o out.data 2>err.txt &
interrupt $! INT 0.8
check "background copy (SIGINT ignored), SIGINT after 0.8 s: exit 0 (got $job_rc)" \
  test "$job_rc" = 0
check "background copy, SIGINT: the output is complete" cmp -s out.data expected.data
rm -f out.data

# ulimit -f: the write past the limit fails (EFBIG), as a full disk does.
run bash -c "ulimit -f 512; exec '$PERFTK' copy -i in.pipe -o out.data"
check "copy past ulimit -f: exit 1 (got $rc)" test "$rc" = 1
check "copy past ulimit -f: the message says why ($(last_error))" err_has 'too large'
check "copy past ulimit -f: no output, no temporary file" test ! -e out.data -a -z "$(temps_in .)"

# A mapped input truncated mid-run. The output is a FIFO whose buffer fills,
# so the run waits in its write with the input mapped until the FIFO is
# read; the input is cut meanwhile.
"$PERFTK" copy -i in.pipe -o big.data  # a file layout input, mapped
mkfifo fifo
exec 3<>fifo  # a reader, so that perftk's open of the FIFO does not wait
"$PERFTK" copy -i big.data -o fifo 2>err.txt &
pid=$!
for ((i = 0; i < 100; i++)); do
  has big.data </proc/$pid/maps 2>/dev/null && break
  sleep 0.05
done
sleep 0.3
truncate -s 4096 big.data
timeout 10 cat <&3 >/dev/null || true
wait_or_kill $pid 10
exec 3<&-
check "an input cut mid-run: the run ends by SIGBUS ($(signal_status BUS), got $job_rc)" \
  test "$job_rc" = "$(signal_status BUS)"
check "an input cut mid-run: the message names it and the offset ($(last_error))" \
  err_has 'big.data: the input shrank while it was read \(no data at offset 0x[0-9a-f]+\)'

# The same into a regular output: the temporary file goes too. Stopped once
# the input is mapped, cut, continued: SIGBUS, or (when the copy was done
# before it could be stopped) the complete output.
"$PERFTK" copy -i in.pipe -o big.data
for round in 1 2 3; do
  "$PERFTK" copy -i big.data -o out.data 2>err.txt &
  pid=$!
  while kill -0 $pid 2>/dev/null && ! has big.data </proc/$pid/maps 2>/dev/null; do :; done
  kill -STOP $pid 2>/dev/null || true
  truncate -s 4096 big.data
  kill -CONT $pid 2>/dev/null || true
  wait_or_kill $pid 30
  if [ "$job_rc" = 0 ]; then
    check "regular output, round $round: finished before the cut, output complete" \
      cmp -s out.data expected.data
  else
    check "regular output, round $round: SIGBUS (got $job_rc)" test "$job_rc" = "$(signal_status BUS)"
    check "regular output, round $round: no output, no temporary file ($(temps_in .))" \
      test ! -e out.data -a -z "$(temps_in .)"
  fi
  rm -f out.data
  "$PERFTK" copy -i in.pipe -o big.data
done
check "the input is unchanged" test "$(sha_of in.pipe)" = "$input_sha"
checks_summary
