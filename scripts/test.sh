#!/usr/bin/env bash
# Runs every test of perftk: unit and shell tests (against the real perf) on
# the release build and on the ASan+UBSan build, the machine-model tests under
# TSan, and the perf.data reader fuzzer for a bounded time.
#   scripts/test.sh              # after scripts/setup.sh
#   FUZZ_SECONDS=10 scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=true
status=0
step() { echo; echo "=== $*"; }

step "release build: unit and shell tests"
ninja -C build >/dev/null
ctest --test-dir build --output-on-failure -j"$jobs" || status=1

step "ASan+UBSan build: unit and shell tests"
ninja -C build-asan >/dev/null
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j"$jobs" || status=1

step "TSan build: machine model under concurrent readers and a mutator"
ninja -C build-tsan perftk_machine_tests >/dev/null
TSAN_OPTIONS=halt_on_error=1 build-tsan/tests/perftk_machine_tests --gtest_brief=1 || status=1

if [ -d build-fuzz ] && [ -x tests/fuzz/run.sh ]; then
  step "fuzzing the perf.data reader for ${FUZZ_SECONDS:-60} s"
  ninja -C build-fuzz reader_fuzzer >/dev/null
  tests/fuzz/run.sh build-fuzz/tests/fuzz/reader_fuzzer "${FUZZ_SECONDS:-60}" || status=1
fi

echo
if [ "$status" = 0 ]; then echo "all test suites passed"; else echo "some test suites FAILED"; fi
exit "$status"
