#!/usr/bin/env bash
# Private recordings stay private (issue 32): every file perftk makes of a
# recording -- copy, aslr, unwind, cs-etm-decode (perf.data, profile text,
# script), jit's output, its .so files and its build-id cache entries -- is
# created with no more than the recording's read/write bits, the umask
# applying as usual. perf record writes 0600; so does perftk then.
source "$(dirname "$0")/lib/common.bash"
source "$LIB_DIR/checks.bash"
source "$LIB_DIR/safety.bash"
require_perf
umask 022

# has_mode MODE FILE...: every FILE has MODE (those that do not are named).
has_mode() {
  local want=$1 wrong
  shift
  wrong=$(stat -c '%a %n' -- "$@" | awk -v want="$want" '$1 != want && ++n <= 3')
  [ -z "$wrong" ] || { echo "  not $want: $wrong"; return 1; }
}

record_busy in.data 100
check "perf record writes 0600 (the case this test is about)" has_mode 600 in.data
"$PERFTK" copy -q -i in.data -o copy.data
"$PERFTK" aslr -q -i in.data -o aslr.data
"$PERFTK" unwind -q -i in.data -o unwind.data
check "copy, aslr, unwind of a 0600 recording: 0600" has_mode 600 copy.data aslr.data unwind.data
"$PERFTK" copy -q -i in.data -o - >stdout.data
check "to standard output: the file the shell made keeps its mode" has_mode 644 stdout.data
echo old >existing.data
chmod 664 existing.data
"$PERFTK" copy -q -i in.data -o existing.data
check "an existing 0664 output replaced from a 0600 recording: 0600" has_mode 600 existing.data
"$PERFTK" copy -q -i - -o from_pipe.data <in.data
check "a recording from a pipe (0600, as the kernel makes pipes): 0600" has_mode 600 from_pipe.data

chmod 640 in.data
"$PERFTK" copy -q -i in.data -o g.data
check "a 0640 recording: 0640" has_mode 640 g.data
chmod 666 in.data
"$PERFTK" copy -q -i in.data -o wide.data
check "a 0666 recording under umask 022: 0644" has_mode 644 wide.data
(umask 077 && "$PERFTK" copy -q -i in.data -o masked.data)
check "a 0666 recording under umask 077: 0600" has_mode 600 masked.data

copy_etm_recording
chmod 600 etm/perf_etm.data
etm=(-i etm/perf_etm.data --symfs etm)
"$PERFTK" cs-etm-decode -q "${etm[@]}" --itrace=i1l64 -o etm.data
"$PERFTK" cs-etm-decode -q "${etm[@]}" --itrace=i1l64 --format=script -o etm.txt
"$PERFTK" cs-etm-decode -q "${etm[@]}" --format=autofdo -o etm.afdo
check "cs-etm-decode of a 0600 recording: perf.data, script and profile 0600" \
  has_mode 600 etm.data etm.txt etm.afdo

if command -v node >/dev/null; then
  source "$LIB_DIR/jit_node.bash"
  BENCH_MS=200 record_node node.data
  check "perf record -k 1 of node writes 0600" has_mode 600 node.data
  mkdir jd cache
  "$PERFTK" jit -q -i node.data -o jit.data --jit-dir jd --buildid-cache="$WORK/cache"
  check "jit of a 0600 recording: 0600" has_mode 600 jit.data
  mapfile -t sos < <(find jd -name '*.so')
  check "jit wrote .so files (${#sos[@]})" test "${#sos[@]}" -gt 0
  check "jit's .so files: 0600" has_mode 600 "${sos[@]}"
  mapfile -t cached < <(find cache -type f)
  mapfile -t dirs < <(find cache -mindepth 1 -type d)
  check "the build-id cache has the files (${#cached[@]})" test "${#cached[@]}" -gt 0
  check "build-id cache files: 0600" has_mode 600 "${cached[@]}"
  check "build-id cache folders made by jit: 0700" has_mode 700 "${dirs[@]}"
else
  echo "note: node is not installed: jit's files are not checked"
fi
checks_summary
