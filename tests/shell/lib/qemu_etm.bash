# Tracing a real aarch64 program under qemu-aarch64 into a CoreSight
# perf.data and its ground truth (perftk_qemu_etm), and the checks every
# cs_etm_qemu_<program>.sh makes of perftk's decode against that truth.
# Sourced after common.bash, never run.
QEMU_PREFIX=/usr/aarch64-linux-gnu
QEMU_ETM_LIB=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# Skips (exit 77) unless qemu-aarch64, the cross compiler, its libc and
# perftk_qemu_etm (QEMU_ETM, next to perftk's build by default) are here.
require_qemu_etm() {
  command -v qemu-aarch64 >/dev/null || skip "no qemu-aarch64 (Debian: qemu-user)"
  command -v aarch64-linux-gnu-gcc >/dev/null ||
    skip "no aarch64-linux-gnu-gcc (Debian: gcc-aarch64-linux-gnu)"
  [ -e "$QEMU_PREFIX/lib/libc.so.6" ] ||
    skip "no $QEMU_PREFIX/lib/libc.so.6 (Debian: libc6-dev-arm64-cross)"
  QEMU_ETM=${QEMU_ETM:-$(dirname "$(dirname "$PERFTK")")/tests/perftk_qemu_etm}
  [ -x "$QEMU_ETM" ] || skip "no perftk_qemu_etm at $QEMU_ETM"
}

# `cached_build SOURCES OUT COMMAND...`: COMMAND builds the program OUT in
# the current folder from the files under SOURCES (a vendored project).
# With $PERFTK_PROGRAM_CACHE set (ctest sets it) the program is built once
# for every test that runs the same command on the same sources, shell
# libraries and cross compilers, and copied from there; tests that build it
# at the same time wait for the first (flock). Without it COMMAND just runs
# (bench/).
cached_build() {
  local sources=$1 out=$2
  shift 2
  local cache=${PERFTK_PROGRAM_CACHE:-}
  if [ -z "$cache" ]; then
    "$@"
    return
  fi
  mkdir -p "$cache"
  local key
  key=$({
    printf '%s\n' "$out" "$@"
    declare -f "$1"
    cat "$QEMU_ETM_LIB"/*.bash
    find "$sources" -type f -print0 | sort -z | xargs -0 sha256sum
    aarch64-linux-gnu-gcc --version 2>&1
    clang --version 2>&1
    ld.lld --version 2>&1
  } | sha256sum | cut -c1-24)
  local entry=$cache/$key
  (
    flock 9
    if [ ! -e "$entry" ]; then
      "$@" || exit 1
      cp "$out" "$entry.tmp" && mv "$entry.tmp" "$entry"
    else
      cp "$entry" "$out"
    fi
  ) 9>"$entry.lock"
}

seconds() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(seconds)" 'BEGIN { printf "%.2f", b - a }'; }

# `exec_ranges BINARY`: its executable PT_LOADs as FIRST-END (hex).
exec_ranges() {
  aarch64-linux-gnu-readelf -lW "$1" | while read -r type _ vaddr _ _ memsz flags; do
    if [ "$type" = LOAD ] && [[ $flags == *E* ]]; then
      printf '%x-%x\n' $((vaddr)) $((vaddr + memsz))
    fi
  done
}

# `taken_branches BINARY ARG...`: runs BINARY (an aarch64 program) under
# qemu one instruction at a time, its stdout in BINARY.out, and prints
# "TAKEN EXECUTED": the instructions it executed in BINARY's own code and
# the taken branches among them (taken_branches.pl). qemu runs with an
# empty environment, so that two runs are one.
taken_branches() {
  local binary=$1
  shift
  local ranges
  ranges=$(exec_ranges "$binary")
  [ -n "$ranges" ] || return 1
  # shellcheck disable=SC2086 # one argument per range
  env -i "$(command -v qemu-aarch64)" -L "$QEMU_PREFIX" -singlestep -d exec,nochain \
    -D /dev/stderr "$binary" "$@" 2>&1 >"$binary.out" | perl "$QEMU_ETM_LIB/taken_branches.pl" $ranges
}

# `qemu_etm_trace NAME steps|blocks PROGRAM ARG...`: runs ./PROGRAM ARG...
# under qemu (one instruction at a time, or by translation blocks: several
# times faster, the same recording), with an empty environment so that two
# runs are one. Its stdout in NAME.out, the recording in NAME/perf.data,
# the truth in NAME.truth (AutoFDO text) and NAME.bolt/ (BOLT texts), the
# il64 samples in NAME.samples, the recorder's statistics in NAME.stats.
qemu_etm_trace() {
  local name=$1 mode=$2 program=$3 log=(-singlestep -d "exec,nochain") blocks=
  shift 3
  [ "$mode" = steps ] || { log=(-d "in_asm,exec,nochain") blocks=--blocks; }
  mkdir "$name" "$name.bolt"
  local start
  start=$(seconds)
  env -i "$(command -v qemu-aarch64)" -L "$QEMU_PREFIX" "${log[@]}" -strace -D /dev/stderr \
    "./$program" "$@" 2>&1 >"$name.out" |
    "$QEMU_ETM" $blocks --program "./$program" --prefix "$QEMU_PREFIX" --buffer-kb 64 \
      --out "$name/perf.data" --truth-autofdo "$name.truth" --truth-bolt-dir "$name.bolt" \
      --expect-itrace i1000il64 --expect-out "$name.samples" >"$name.stats" ||
    fail "qemu-aarch64 | perftk_qemu_etm ($name) failed"
  echo "$name: qemu + recorder $(elapsed "$start") s: $(cat "$name.stats")"
}

# `check_ranges_hold_executed STATS AFDO`: every instruction the recorder
# saw executed is in exactly one counted range of the AutoFDO text.
check_ranges_hold_executed() {
  local executed ranged=0 first last count
  executed=$(sed -nE 's/.* ([0-9]+) instructions.*/\1/p' "$1")
  while IFS='-:' read -r first last count; do
    ranged=$((ranged + count * ((0x$last - 0x$first) / 4 + 1)))
  done < <(grep -E '^[0-9a-f]+-[0-9a-f]+:[0-9]+$' "$2")
  [ "$ranged" -eq "$executed" ] || fail "the ranges hold $ranged instructions, qemu executed $executed"
  echo "ok: the ranges hold the $executed executed instructions"
}

# `check_autofdo NAME PROGRAM [static]`: --format=autofdo of NAME/perf.data
# (into got.afdo, timed) equals the truth NAME.truth byte for byte; the
# truth covers PROGRAM, libc and ld.so (static: PROGRAM and nothing else),
# with more than 1000 ranges of PROGRAM.
check_autofdo() {
  local start binary binaries=("$2" "$QEMU_PREFIX/lib/libc.so.6" "$QEMU_PREFIX/lib/ld-linux-aarch64.so.1")
  start=$(seconds)
  "$PERFTK" cs-etm-decode -q -i "$1/perf.data" --format=autofdo --jobs 1 -o got.afdo
  echo "decoded $(du -k "$1/perf.data" | cut -f1) KB in $(elapsed "$start") s"
  if [ "${3:-}" = static ]; then
    binaries=("$2")
    [ "$(grep -c '^// /' "$1.truth")" -eq 1 ] || fail "the truth of static $2 has other binaries"
  fi
  for binary in "${binaries[@]}"; do
    has -Fx "// $(realpath "$binary")" "$1.truth" || fail "the truth has no $binary"
  done
  [ "$(head -1 "$1.truth")" -gt 1000 ] || fail "the truth has $(head -1 "$1.truth") ranges of $2"
  if ! cmp -s "$1.truth" got.afdo; then
    diff "$1.truth" got.afdo | head -20 >&2
    fail "--format=autofdo differs from the ground truth"
  fi
  echo "ok: --format=autofdo equals the truth ($(grep -cE '^[0-9a-f]+-[0-9a-f]+:' "$1.truth") ranges, $(grep -c -- '->' "$1.truth") branches)"
}

# `check_il64 NAME`: --itrace=i1000il64 of NAME/perf.data (into il64.data)
# gives, as perf script prints them, the truth's NAME.samples, with more
# than 1000 full branch stacks. Returns 1 (nothing checked) without perf.
check_il64() {
  if ! command -v perf >/dev/null; then
    echo "note: no perf (Debian: linux-perf): the il64 branch stacks are not checked"
    return 1
  fi
  "$PERFTK" cs-etm-decode -q -i "$1/perf.data" --itrace=i1000il64 -o il64.data
  brstack_listing il64.data >il64.got
  [ "$(awk 'NF == 67' "$1.samples" | wc -l)" -gt 1000 ] || fail "few full branch stacks in the truth"
  cmp -s "$1.samples" il64.got ||
    fail "il64 samples differ from the truth: $(diff "$1.samples" il64.got | head -2 | cut -c1-160)"
  echo "ok: $(wc -l <il64.got) il64 samples equal the truth's"
}

# `check_bolt NAME DSO...`: --format=bolt --dso DSO of NAME/perf.data
# equals the truth's NAME.bolt/DSO.bolt, with more than 100 branches.
check_bolt() {
  local name=$1 binary
  shift
  for binary in "$@"; do
    "$PERFTK" cs-etm-decode -q -i "$name/perf.data" --format=bolt --dso "$binary" -o "$binary.bolt"
    [ "$(grep -c '^B' "$binary.bolt")" -gt 100 ] || fail "few branches in the BOLT text of $binary"
    cmp -s "$name.bolt/$binary.bolt" "$binary.bolt" ||
      fail "--format=bolt --dso $binary differs: $(diff "$name.bolt/$binary.bolt" "$binary.bolt" | head -2)"
  done
  echo "ok: --format=bolt equals the truth for $*"
}

# `check_shifted_control TRUTH GOT`: TRUTH with its first range one
# instruction later differs from GOT (the comparison can fail).
check_shifted_control() {
  local first last count
  IFS='-:' read -r first last count < <(sed -n 2p "$1")
  {
    head -1 "$1"
    printf '%x-%x:%s\n' $((0x$first + 4)) $((0x$last)) "$count"
    tail -n +3 "$1"
  } >shifted.truth
  [ "$(cmp shifted.truth "$1" | wc -l)" -eq 1 ] || fail "control: no range was shifted"
  ! cmp -s shifted.truth "$2" || fail "control: a shifted truth equals the decode"
}
