# Shared setup for tests/shell/*.sh: a work dir, the perftk binary, a small
# workload, and comparisons against the real perf. Sourced, never run.
# Exit 77 means "skipped" to ctest (SKIP_RETURN_CODE).
set -euo pipefail

PERFTK=${PERFTK:?set PERFTK to the perftk binary (ctest does)}
LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/perftk-test.XXXXXX")
# `at_exit COMMAND [ARG...]`: runs COMMAND at exit, however the script ends
# (a failed check, `fail`, set -e), before the work dir is removed; the
# latest registered runs first. Scripts add cleanups here rather than set
# their own EXIT trap, which would replace this one and leak $WORK.
EXIT_HOOKS=()
at_exit() { EXIT_HOOKS+=("$(printf '%q ' "$@")"); }
run_exit_hooks() {
  set +e # every hook runs, and none changes the script's exit status
  local i
  for ((i = ${#EXIT_HOOKS[@]} - 1; i >= 0; i--)); do eval "${EXIT_HOOKS[i]}"; done
  cd /
  rm -rf "$WORK"
}
trap run_exit_hooks EXIT
cd "$WORK"

skip() { echo "SKIP: $*" >&2; exit 77; }
# `producer | has PATTERN`: grep -q that reads all of its input. grep -q
# stops at the first match, the producer then dies of SIGPIPE, and under
# pipefail the pipeline fails although the pattern was found.
has() { grep "$@" >/dev/null; }
fail() { echo "FAIL: $*" >&2; exit 1; }

# `expect_exit STATUS COMMAND...`: runs COMMAND (its output in cmd.out and
# cmd.err) and fails unless it exits with STATUS.
expect_exit() {
  local want=$1
  shift
  set +e
  "$@" >cmd.out 2>cmd.err
  local got=$?
  set -e
  [ "$got" -eq "$want" ] || { cat cmd.err >&2; fail "'$*' exited $got, not $want"; }
}

# Whether $PERFTK is an ASan build (its shadow memory makes RSS and
# address-space limits meaningless): gcc links libasan.so, clang links the
# runtime in and exports its entry points.
asan_build() {
  ldd "$PERFTK" | has libasan || nm -D --defined-only "$PERFTK" | has -w __asan_init
}

# perf must exist and be able to record a software event here.
require_perf() {
  command -v perf >/dev/null || skip "perf is not installed (Debian: linux-perf)"
  perf record -q -e cpu-clock -o "$WORK/probe.data" -- true >/dev/null 2>&1 ||
    skip "perf record -e cpu-clock does not work here (perf_event_paranoid?)"
  rm -f "$WORK/probe.data"
}

# Builds the workload (several functions, a global variable) as ./workload.
build_workload() {
  cc -O1 -g -fno-omit-frame-pointer -fno-inline "$@" -o workload "$LIB_DIR/workload.c" -lpthread
}

# The perf script listing perftk must preserve: every sample and every
# mmap/task event, with perf's default fields plus any given with -F.
script_of() {
  local file=$1
  shift
  perf script -i "$file" --show-mmap-events --show-task-events "$@" 2>"$file.script.err"
}

report_of() {
  local file=$1
  shift
  perf report -i "$file" --stdio "$@" 2>/dev/null | grep -v '^#' | grep -v '^$'
}

# Fails with a diff when two listings differ; refuses empty listings, which
# would make any comparison pass.
same_listing() {
  local what=$1 expected=$2 actual=$3
  [ -s "$expected" ] || fail "$what: the listing of the input is empty"
  if ! cmp -s "$expected" "$actual"; then
    # Not `diff | head`: head's early exit would kill diff by SIGPIPE, and
    # under pipefail end the script before `fail` says what differs.
    diff -u "$expected" "$actual" >"$actual.diff" || true
    head -40 "$actual.diff" >&2
    fail "$what differs"
  fi
}

# The identity rewrite of IN, checked in file and pipe layout: perf script
# and perf report must print exactly what they print for the input.
# Extra arguments go to perf script (e.g. -F +addr).
check_copy_roundtrip() {
  local in=$1
  shift
  # perf report's default (--children or not) depends on the layout, so the
  # default report is compared only between files of one layout.
  local same_layout=copy.data
  if "$PERFTK" dump -i "$in" --header-only | has 'layout=pipe'; then
    same_layout=copy.pipe.data
  fi
  script_of "$in" "$@" >expected.script
  report_of "$in" >expected.report
  report_of "$in" --no-children >expected.nochildren

  "$PERFTK" copy -i "$in" -o copy.data
  "$PERFTK" copy -i "$in" -o copy.pipe.data --pipe
  for out in copy.data copy.pipe.data; do
    script_of "$out" "$@" >"$out.script"
    report_of "$out" --no-children >"$out.nochildren"
    same_listing "perf script ($out)" expected.script "$out.script"
    same_listing "perf report --no-children ($out)" expected.nochildren "$out.nochildren"
  done
  report_of "$same_layout" >same_layout.report
  same_listing "perf report ($same_layout)" expected.report same_layout.report

  "$PERFTK" copy -i "$in" -o - | perf script -i - --show-mmap-events --show-task-events "$@" \
    2>/dev/null >stdout.script
  same_listing "perf script (pipe to stdout)" expected.script stdout.script
  echo "ok: $(wc -l <expected.script) script lines, $(wc -l <expected.report) report lines"
}

# `brstack_listing PERF_DATA`: one line per sample as perftk_etm_gen and
# perftk_qemu_etm write expected samples: "cpu pid/tid ip from>to ..."
# (hex without 0x, branch stack newest first), read by perf script.
brstack_listing() {
  perf script -i "$1" -F cpu,pid,tid,ip,brstack 2>/dev/null | awk '{
    cpu = $2; gsub(/[\[\]]/, "", cpu); line = (cpu + 0) " " $1 " " $3
    for (i = 4; i <= NF; i++) {
      split($i, a, "/"); sub(/^0x/, "", a[1]); sub(/^0x/, "", a[2]); line = line " " a[1] ">" a[2]
    }
    print line }'
}
