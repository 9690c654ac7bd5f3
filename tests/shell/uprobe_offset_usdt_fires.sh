#!/bin/bash
# uprobe-offset usdt:...: the --format=uprobe-events line, written to
# tracefs as is, fires with the right argument values:
#  - a semaphore-guarded probe passing an int, a char* and a negative long
#    (tests/shell/lib/usdt_workload.c) fires once per call with the values
#    the program prints, the pointer as a number and, with --string 2, as
#    its text; the program sees its semaphore raised;
#  - the same line without "(REF_CTR)" never fires (the semaphore stays 0);
#  - the fixture probes of every argument form (registers of each width,
#    stack slots, %rip-relative globals as @+X, constants) at -O2 and -O0;
#  - python3.11's function__entry, with --string 1 --string 2, names the
#    Python function called (Python 3.11 reaches this probe for calls from
#    Python code only while a trace function is set: 0 hits without
#    sys.settrace, one per call with it).
# perf record counts per process and perf script prints the arguments.
# Probes are always removed. Needs root, tracefs and perf; exits 77 otherwise.
source "$(dirname "$0")/lib/common.bash"
# shellcheck source=lib/checks.bash
source "$LIB_DIR/checks.bash"
# shellcheck source=lib/uprobe.bash
source "$LIB_DIR/uprobe.bash"
require_tracefs "to write uprobe_events"

GROUP=perftk_usdt_fires
delete_events() { uprobe_delete_group "$GROUP"; }
build_fixtures
gcc -O2 -g -o "$WORK/usdt_workload" "$LIB_DIR/usdt_workload.c" 2> "$WORK/cc.log" ||
  skip "cannot build the workload (<sys/sdt.h>: Debian systemtap-sdt-dev): $(head -1 "$WORK/cc.log")"

# add EVENT LINE: writes LINE to uprobe_events as event GROUP/EVENT.
add() {
  local event=$1 line=$2
  line=$(sed -E "s|^p:[^ ]+|p:$GROUP/$event|" <<< "$line")
  uprobe_add "$line" ||
    { check "the kernel accepts '$line' ($(cat "$WORK/uprobe_add.err"))" false; return 1; }
}

# record EVENTS... -- COMMAND...: perf record of the events while COMMAND
# runs; COMMAND's stdout in $WORK/stdout, perf script's lines in $WORK/script.
record() {
  local events=()
  while [[ $1 != -- ]]; do events+=(-e "$GROUP:$1"); shift; done
  shift
  perf record -q -o "$WORK/perf.data" "${events[@]}" -- "$@" > "$WORK/stdout" 2> "$WORK/record.err" ||
    { check "perf record ${events[*]}: $(head -3 "$WORK/record.err")" false; return 1; }
  perf script -i "$WORK/perf.data" > "$WORK/script" 2> /dev/null
}

# hits EVENT KEYS...: "KEY=VALUE ..." of each hit of EVENT, in order, only
# the named argument keys. perf 6.1's perf script prints s8 and s16 fields
# as unsigned (the kernel's own trace prints -1 where it prints 255): values
# are read back as the event's format file (signed:1, size) declares them.
hits() {
  local event=$1
  shift
  python3 - "$WORK/script" "$GROUP:$event" "$TRACEFS/events/$GROUP/$event/format" "$@" <<'PY'
import re, sys
script, event, format_file, keys = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
signed = {}
for m in re.finditer(r"field:\S+ (arg\d+);.*?size:(\d+);\s*signed:1;", open(format_file).read()):
    signed[m.group(1)] = int(m.group(2))
def value(key, text):
    if key in signed and text.isdigit() and int(text) >= 1 << (8 * signed[key] - 1):
        return str(int(text) - (1 << (8 * signed[key])))
    return text
for line in open(script):
    if (" " + event + ": ") not in line:
        continue
    args = dict(re.findall(r'\b(arg\d+)=("[^"]*"|\S+)', line.split(event, 1)[1]))
    print(" ".join("%s=%s" % (k, value(k, args.get(k, "?"))) for k in keys))
PY
}

same() { diff -u "$1" "$2" > "$WORK/diff" || { head -20 "$WORK/diff"; false; }; }

# 1. The semaphore-guarded probe, its arguments as numbers and as a string.
N=5
line=$("$PERFTK" uprobe-offset --format=uprobe-events "$WORK/usdt_workload" usdt:perftk_test:hit) ||
  check "usdt_workload: uprobe-offset usdt:perftk_test:hit" false
string_line=$("$PERFTK" uprobe-offset --format=uprobe-events --string 2 "$WORK/usdt_workload" \
                usdt:perftk_test:hit) ||
  check "usdt_workload: uprobe-offset --string 2 usdt:perftk_test:hit" false
check "the line has a semaphore: $line" grep -q ':0x[0-9a-f]*(0x[0-9a-f]*) ' <<< "$line"
if add hit "$line" && add hit_string "$string_line" &&
   record hit hit_string -- "$WORK/usdt_workload" "$N"; then
  awk 'NF == 4 {print "arg1=" $1, "arg2=" $2, "arg3=" $3}' "$WORK/stdout" > "$WORK/want"
  awk 'NF == 4 {print "arg1=" $1, "arg2=\"" $4 "\"", "arg3=" $3}' "$WORK/stdout" > "$WORK/want_string"
  hits hit arg1 arg2 arg3 > "$WORK/got"
  hits hit_string arg1 arg2 arg3 > "$WORK/got_string"
  check "guarded probe fired $N times: $(wc -l < "$WORK/got") hits" test "$(wc -l < "$WORK/got")" -eq "$N"
  check "int, pointer and negative long equal what the program passed" same "$WORK/want" "$WORK/got"
  check "--string 2 reads the text" same "$WORK/want_string" "$WORK/got_string"
  check "the program saw its semaphore raised" grep -q '^semaphore [1-9]' "$WORK/stdout"
fi
delete_events

# 2. Without the semaphore the guarded probe never runs.
if add hit_nosem "$(sed -E 's/\(0x[0-9a-f]+\)//' <<< "$line")" &&
   record hit_nosem -- "$WORK/usdt_workload" "$N"; then
  check "without ref_ctr_offset: no hit" test "$(hits hit_nosem arg1 | wc -l)" -eq 0
  check "without ref_ctr_offset: semaphore stays 0" grep -q '^semaphore 0$' "$WORK/stdout"
fi
delete_events

# 3. Every argument form of the fixtures. main calls each probe for i = 0,
# 1, 2: widths(-i, i, -i, i, -i, i, -i, i); memory(i) passes g_s32 (-32),
# g_u64 (64), g_array[i], i * 3, g_array[3] (0), &g_array[i]; constants
# passes 5, -7, 1 << 40.
for i in 0 1 2; do
  echo "arg1=-$i arg2=$i arg3=-$i arg4=$i arg5=-$i arg6=$i arg7=-$i arg8=$i"
done | sed 's/=-0/=0/g' > "$WORK/want_widths"
for i in 0 1 2; do echo "arg1=-32 arg2=64 arg4=$((i * 3)) arg5=0"; done > "$WORK/want_memory"
for i in 0 1 2; do echo "arg1=5 arg2=-7 arg3=1099511627776"; done > "$WORK/want_constants"
for fixture in u_x64 u_x64_O0 u_x64_nopie; do
  delete_events
  ok=1
  for probe in widths memory constants; do
    probe_line=$("$PERFTK" uprobe-offset --format=uprobe-events "$WORK/$fixture" \
                   "usdt:perftk:$probe" 2> /dev/null) || { check "$fixture $probe: uprobe-offset" false; ok=0; }
    add "$probe" "$probe_line" || ok=0
  done
  if [[ $ok != 1 ]] || ! record widths memory constants -- "$WORK/$fixture"; then continue; fi
  hits widths arg1 arg2 arg3 arg4 arg5 arg6 arg7 arg8 > "$WORK/got_widths"
  check "$fixture widths: every register width and stack slot" same "$WORK/want_widths" "$WORK/got_widths"
  # -O0 passes memory's arguments in registers; -O2 reads globals %rip-relative.
  hits memory arg1 arg2 arg4 arg5 > "$WORK/got_memory"
  check "$fixture memory: globals, locals, array element" same "$WORK/want_memory" "$WORK/got_memory"
  hits constants arg1 arg2 arg3 > "$WORK/got_constants"
  check "$fixture constants" same "$WORK/want_constants" "$WORK/got_constants"
done
delete_events

# 4. python3.11's function__entry names the functions Python calls.
PYTHON=/usr/bin/python3.11
if [[ -x $PYTHON ]]; then
  py_line=$("$PERFTK" uprobe-offset --format=uprobe-events --string 1 --string 2 "$PYTHON" \
              usdt:python:function__entry) ||
    check "python3.11: uprobe-offset usdt:python:function__entry" false
  if add py_entry "$py_line" &&
     record py_entry -- "$PYTHON" -c 'import sys
sys.settrace(lambda *args: None)
def perftk_probe_target(n): return n
for i in range(4): perftk_probe_target(i)'; then
    calls=$(hits py_entry arg1 arg2 | grep -c 'arg1="<string>" arg2="perftk_probe_target"') || true
    check "python3.11 function__entry: perftk_probe_target called 4 times, $calls hits" \
      test "$calls" -eq 4
  fi
  delete_events
else
  echo "note: $PYTHON not installed"
fi

checks_summary
