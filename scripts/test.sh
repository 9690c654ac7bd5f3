#!/usr/bin/env bash
# Runs every test of perftk: unit and shell tests (against the real perf) on
# the release build and on the ASan+UBSan build, the machine-model tests under
# TSan, and the perf.data reader fuzzer for a bounded time. Ends with one line
# "N passed, M failed" counting every test of every suite.
#   scripts/test.sh              # after scripts/setup.sh
#   FUZZ_SECONDS=10 scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=true
log=$(mktemp)
trap 'rm -f "$log"' EXIT
passed=0
failed=0
step() { echo; echo "=== $*"; }

# Adds the counts of ctest's summary line ("... N tests failed out of M").
count_ctest() {
  local line total bad
  line=$(grep -E 'tests? failed out of [0-9]+' "$log" | tail -1)
  total=$(sed -E 's/.* out of ([0-9]+).*/\1/' <<<"$line")
  bad=$(sed -E 's/.* ([0-9]+) tests? failed out of.*/\1/' <<<"$line")
  if [ -z "$line" ]; then failed=$((failed + 1)); return; fi
  passed=$((passed + total - bad))
  failed=$((failed + bad))
}

step "release build: unit and shell tests"
ninja -C build >/dev/null
ctest --test-dir build --output-on-failure -j"$jobs" 2>&1 | tee "$log" || true
count_ctest

step "ASan+UBSan build: unit and shell tests"
ninja -C build-asan >/dev/null
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j"$jobs" 2>&1 | tee "$log" || true
count_ctest

step "TSan build: machine model under concurrent readers and a mutator"
ninja -C build-tsan perftk_machine_tests >/dev/null
if TSAN_OPTIONS=halt_on_error=1 build-tsan/tests/perftk_machine_tests --gtest_brief=1 2>&1 | tee "$log"; then
  passed=$((passed + $(sed -nE 's/^\[  PASSED  \] ([0-9]+) tests?.*/\1/p' "$log" | tail -1)))
else
  failed=$((failed + 1))
fi

if [ -d build-fuzz ] && [ -x tests/fuzz/run.sh ]; then
  step "fuzzing the perf.data reader for ${FUZZ_SECONDS:-60} s"
  ninja -C build-fuzz perftk_reader_fuzzer >/dev/null
  if tests/fuzz/run.sh build-fuzz/tests/fuzz/perftk_reader_fuzzer "${FUZZ_SECONDS:-60}"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
  fi
fi

echo
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
