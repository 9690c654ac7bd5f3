# Shared by tests/shell/safety_*.sh (issue 15: output safety): running a
# command that may fail or hang, device nodes, FIFOs, small file systems,
# signals. Sourced after common.bash and checks.bash.

# Cleanup in this order on exit: extra commands (unmounts), our background
# jobs, then the work dir (common.bash, after its at_exit hooks).
SAFETY_CLEANUP=()
safety_cleanup() {
  local c pids
  for c in "${SAFETY_CLEANUP[@]}"; do eval "$c" >/dev/null 2>&1 || true; done
  pids=$(jobs -p)
  [ -z "$pids" ] || kill -KILL $pids 2>/dev/null || true
}
at_exit safety_cleanup

require_root() { [ "$(id -u)" = 0 ] || skip "needs root (${1:-device nodes, mount})"; }

# run CMD...: runs CMD under `timeout` (RUN_TIMEOUT seconds, 60; a hang
# gives 124), stderr kept in $WORK/err.txt; sets rc. Never fails itself.
RUN_TIMEOUT=60
run() {
  set +e
  timeout "$RUN_TIMEOUT" "$@" 2>"$WORK/err.txt"
  rc=$?
  set -e
}
# err_has PATTERN: the last run's stderr matches PATTERN (grep -E, any case).
err_has() { grep -qiE -- "$1" "$WORK/err.txt"; }
last_error() { tr '\n' ' ' <"$WORK/err.txt" | cut -c1-300; }

sha_of() { sha256sum "$1" | cut -d' ' -f1; }
# no_temps_in DIR: no *.tmp.* file anywhere under DIR; temps_in lists them.
no_temps_in() { [ -z "$(find "$1" -name '*.tmp.*' -print -quit)" ]; }
temps_in() { find "$1" -name '*.tmp.*' -printf '%f '; }
# nothing_but_dirs_in DIR: no file, symlink, FIFO... anywhere under DIR.
nothing_but_dirs_in() { [ -z "$(find "$1" ! -type d -print -quit)" ]; }

# make_devices DIR: DIR/null and DIR/full, private copies of /dev/null and
# /dev/full (same major/minor), so /dev itself is never at risk.
make_devices() {
  require_root "mknod"
  mknod "$1/null" c 1 3
  mknod "$1/full" c 1 7
}

# mount_small_tmpfs DIR [SIZE]: a tmpfs of SIZE (256k) on DIR, unmounted on exit.
mount_small_tmpfs() {
  require_root "mount -t tmpfs"
  mkdir -p "$1"
  mount -t tmpfs -o "size=${2:-256k}" perftk-test "$1" || skip "cannot mount a tmpfs"
  SAFETY_CLEANUP+=("umount -l '$1'")
}

# wait_or_kill PID SECONDS: waits for a background job; kills it when it
# is still running after SECONDS. Sets job_rc to its status (137 when killed).
# (stderr is muted meanwhile: bash reports a job a signal ended.)
wait_or_kill() {
  local pid=$1 i
  {
    for ((i = 0; i < $2 * 10; i++)); do
      kill -0 "$pid" || break
      sleep 0.1
    done
    kill -KILL "$pid" || true
    set +e
    wait "$pid"
    job_rc=$?
    set -e
  } 2>/dev/null
}

# trickle FILE CHUNKS PAUSE: FILE on stdout in CHUNKS pieces, PAUSE seconds
# after each, so a reader of the pipe is mid-run for CHUNKS*PAUSE seconds.
trickle() {
  local file=$1 chunks=$2 pause=$3 size i
  size=$(stat -c %s "$file")
  local chunk=$(((size + chunks - 1) / chunks))
  for ((i = 0; i < chunks; i++)); do
    dd if="$file" bs="$chunk" skip="$i" count=1 status=none || return 0
    sleep "$pause"
  done
}

# record_busy OUT [ROUNDS]: a call-graph recording of the workload (two
# threads, ROUNDS 2000: about 4 MB) at 20 kHz.
record_busy() {
  build_workload
  perf record -q -F 20000 -g -e cpu-clock -o "$1" -- ./workload "${2:-2000}" 1 >/dev/null 2>&1 ||
    skip "perf record -F 20000 -g failed here"
}

# write_many_functions_js: many.js, which compiles and calls N (argv[2])
# distinct functions: a jitdump with one CODE_LOAD or more per function
# (22,204 for 20,000 with Node.js 20).
write_many_functions_js() {
  cat >many.js <<'JS'
const n = +process.argv[2], fns = [];
for (let i = 0; i < n; i++)
  fns.push(new Function('x', `let s = ${i}; for (let k = 0; k < 200; k++) s = (s * 31 + x + k) | 0; return s;`));
let acc = 0;
for (let r = 0; r < 3; r++) for (const f of fns) acc ^= f(acc);
console.log(acc ? 'ok' : 'ok0');
JS
}

# record_node_functions OUT N: perf record -k 1 of node running N functions;
# prints the jitdump's path (once per script: the work dir holds one dump).
record_node_functions() {
  write_many_functions_js
  perf record -q -k 1 -e cpu-clock -o "$1" node --perf-prof many.js "$2" >node.out 2>node.err ||
    skip "perf record of node failed: $(tail -1 node.err)"
  local dump
  dump=$(ls "$WORK"/jit-*.dump 2>/dev/null | tail -1)
  [ -n "$dump" ] || fail "node --perf-prof wrote no jit-<pid>.dump"
  echo "$dump"
}

ETM_DIR=${PERFTK_ETM_DATA_DIR:-$LIB_DIR/../../data/simpleperf-etm}
# copy_etm_recording: the real CoreSight recording and its traced binary
# into etm/ (perf_etm.data, etm_test_loop), as copies a test may spoil.
copy_etm_recording() {
  [ -r "$ETM_DIR/perf_etm.data" ] || skip "no simpleperf ETM recordings at $ETM_DIR"
  mkdir etm
  cp "$ETM_DIR"/perf_etm.data "$ETM_DIR"/etm_test_loop etm/
}

# prepare_writers [JIT_FUNCTIONS]: inputs for each subcommand that writes
# -o OUT (made in $WORK; the CoreSight recording and binary copied to etm/),
# and WRITERS: name -> its arguments but -o (paths without spaces). jit is
# left out, with a note, where node is missing.
WRITER_NAMES=()
declare -A WRITERS
add_writer() { WRITER_NAMES+=("$1"); WRITERS[$1]=$2; }
prepare_writers() {
  require_perf
  record_busy in.data 300
  copy_etm_recording
  add_writer copy "copy -i in.data"
  add_writer aslr "aslr -q -i in.data"
  add_writer cs-etm-perf "cs-etm-decode -q -i etm/perf_etm.data --symfs etm --itrace=i1l64"
  add_writer cs-etm-script "cs-etm-decode -q -i etm/perf_etm.data --symfs etm --itrace=i1l64 --format=script"
  if command -v node >/dev/null; then
    record_node_functions node.data "${1:-2000}" >/dev/null
    mkdir jd
    add_writer jit "jit -q -i node.data --jit-dir jd"
  else
    echo "note: node is not installed, jit is not checked"
  fi
}
# is_text_writer NAME: its output is text (compared with cmp, not perf script).
is_text_writer() { [[ $1 == cs-etm-script ]]; }

# interrupt PID SIGNAL DELAY: sends SIGNAL to a background job after DELAY
# seconds, then waits for it (30 s at most); sets job_rc. Start the job as
# "${PERFTK_SIGINT[@]}": bash starts background jobs with SIGINT ignored.
PERFTK_SIGINT=(env --default-signal=INT "$PERFTK")
interrupt() {
  sleep "$3"
  kill -"$2" "$1" 2>/dev/null || true
  wait_or_kill "$1" 30
}
# interrupt_at_files PID SIGNAL DIR COUNT: the same, sent once DIR holds
# COUNT files (checked every 50 ms) rather than after a time.
interrupt_at_files() {
  while kill -0 "$1" 2>/dev/null && [ "$(find "$3" -type f | wc -l)" -lt "$4" ]; do sleep 0.05; done
  interrupt "$1" "$2" 0
}
# signal_status SIGNAL: 128 + its number, the status of a run it ended.
signal_status() { echo $((128 + $(kill -l "$1"))); }
# check_ended_by WHAT SIGNAL OUT: the run interrupt() waited for ended by
# SIGNAL and left neither OUT nor a temporary file in the work dir (removed
# after the checks, for the next run).
check_ended_by() {
  check "$1: status $(signal_status "$2") (got $job_rc)" test "$job_rc" = "$(signal_status "$2")"
  check "$1: no temporary file ($(temps_in .))" no_temps_in .
  check "$1: no output file" test ! -e "$3"
  rm -f "$3" "$3".tmp.*
}

# err_without PATH: the last run's stderr with PATH taken out, to check
# what a message says besides the path (whose name may hold the words).
err_without() { sed "s|$1||g" "$WORK/err.txt"; }
