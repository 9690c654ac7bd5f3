#!/usr/bin/env bash
# A binary truncated while perftk has it mapped ends the run by SIGBUS, and
# the message names the file (issue 30, D10: "an input file shrank" named
# none, for libelf's and libdw's mappings were not registered). The output
# is removed as for any interrupted run.
# The recording reaches perftk through a FIFO in two parts: the binary is
# truncated once /proc/PID/maps shows it mapped, then the rest follows, and
# decoding the rest must read the binary again. unwind reads libdw's mapping
# of a program's .eh_frame_hdr; cs-etm-decode with OpenCSD reads code for
# every decoded branch (its fast decoder reads each code block once, and
# this small program's blocks are all read before the truncation).
source "$(dirname "$0")/lib/common.bash"
source "$LIB_DIR/checks.bash"
source "$LIB_DIR/safety.bash"
require_perf
GEN=${ETM_GEN:-$(dirname "$(dirname "$PERFTK")")/tests/perftk_etm_gen}
[ -x "$GEN" ] || skip "no perftk_etm_gen at $GEN"

# truncated_midway NAME BINARY RECORDING OUTPUT -- PERFTK-ARGS...: runs perftk
# with the first third of RECORDING on stdin, truncates BINARY once perftk
# maps it, then writes the rest; sets rc and leaves stderr in err.txt.
truncated_midway() {
  local name=$1 binary=$2 recording=$3 output=$4
  shift 5
  local part=$(($(stat -c %s "$recording") / 3)) pid child i
  rm -f feed && mkfifo feed
  timeout 60 "$PERFTK" "$@" -i - -o "$output" <feed 2>err.txt &
  pid=$!
  exec 3>feed
  head -c "$part" "$recording" >&3
  for ((i = 0; i < 200; i++)); do
    child=$(pgrep -P "$pid" || true)  # perftk, under timeout
    [ -n "$child" ] && grep -qF "$binary" "/proc/$child/maps" 2>/dev/null && break
    sleep 0.05
  done
  check "$name: perftk maps $binary within 10 s" test "$i" -lt 200
  if [ "$i" -ge 200 ]; then
    # Why not (one CI run under load, 2026-11-27): what perftk had to go on.
    "$PERFTK" dump -i "$recording" 2>/dev/null | awk -v part="$part" '
      /^record/ { split($2, at, "="); if (at[2] >= part) exit
                  if ($3 == "type=SAMPLE") samples++; if ($3 == "type=FINISHED_ROUND") rounds++ }
      END { printf "  before the split at %d: %d samples, %d FINISHED_ROUNDs\n", part, samples, rounds }' >&2
    grep -F "$(basename "$binary")" "/proc/$child/maps" >&2 || echo "  /proc/$child/maps: not mapped" >&2
  fi
  truncate -s 0 "$binary"
  tail -c +$((part + 1)) "$recording" >&3 2>/dev/null || true
  exec 3>&-
  set +e
  wait "$pid"
  rc=$?
  set -e
}

# unwind: a dwarf pipe recording of a private copy of the workload, long
# enough that unwinding starts before the first third is read: unwind
# works a window of 256 samples at a time, and the reader releases samples
# only up to the last FINISHED_ROUND, so the first third must hold well
# over 256 of them (with 300 rounds of the workload it held 337-365, and
# about half the runs mapped nothing in time). --jobs 1, as the test ran
# before the default became the CPU count.
build_workload
perf record -q -e cpu-clock --call-graph dwarf,4096 -o - -- ./workload 900 1 2>/dev/null \
  >dwarf.pipe || skip "perf record --call-graph dwarf -o - failed"
[ "$(stat -c %s dwarf.pipe)" -gt 1000000 ] || fail "only $(stat -c %s dwarf.pipe) bytes recorded"
truncated_midway unwind "$WORK/workload" dwarf.pipe unwound.data -- unwind -q --jobs 1
check "unwind: killed by SIGBUS (exit $rc, 135 wanted): $(last_error)" test "$rc" = 135
check "unwind: the message names the binary: $(last_error)" \
  err_has "$WORK/workload: the input shrank while it was read"
check "unwind: no output left" test ! -e unwound.data

# cs-etm-decode: the generator's binary, in the pipe layout.
"$GEN" --cpus 1 --trace-mb 2 --buffer-kb 64 --out gen >/dev/null || fail "perftk_etm_gen failed"
"$PERFTK" copy -q -i gen/perf.data -o etm.pipe --pipe
truncated_midway cs-etm-decode "$WORK/gen/etm_demo" etm.pipe decoded.data -- \
  cs-etm-decode -q --itrace=il64 --decoder=opencsd --jobs 1
check "cs-etm-decode: killed by SIGBUS (exit $rc, 135 wanted): $(last_error)" test "$rc" = 135
check "cs-etm-decode: the message names the binary: $(last_error)" \
  err_has "$WORK/gen/etm_demo: the input shrank while it was read"
check "cs-etm-decode: no output left" test ! -e decoded.data
check "no temporary files left" no_temps_in "$WORK"
checks_summary
