#!/usr/bin/env bash
# Runs every test of perftk: the C++ formatting check (.clang-format), unit
# and shell tests (against the real perf) on
# the release build and on the ASan+UBSan build, the tests labelled tsan
# (the code that runs threads) under TSan, and the perf.data reader fuzzer
# (60 s), the two cs-etm fuzzers, the unwind --jobs 2 fuzzer, merge-profiles'
# text fuzzer, the build-id names fuzzer and the llvm-sample DWARF fuzzer
# (15 s each, under a 2 GB RSS limit) for a bounded time. Configures and builds (incrementally) each of build/,
# build-asan/, build-tsan/ and build-fuzz/ before it runs its tests. Ends with
# one line "N passed, M failed, K skipped" counting every test of every suite
# (and a check that the tests left the checkout as they found it); a skipped
# test (exit 77: perf cannot record here, an ASan build) is not a pass.
#   scripts/test.sh              # after scripts/setup.sh
#   FUZZ_SECONDS=10 ETM_FUZZ_SECONDS=5 scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
source scripts/lib/build.bash
log=$(mktemp)
trap 'rm -f "$log"' EXIT
passed=0
failed=0
skipped=0
step() { echo; echo "=== $*"; }
# The checkout as the tests found it (tests write only to their work dirs).
checkout_state() {
  if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git status --porcelain --untracked-files=all
  fi
}
checkout_before=$(checkout_state)

# Adds the counts of ctest's summary line ("... N tests failed out of M"),
# less the tests it lists as skipped (exit 77: "NN - name (Skipped)"), which
# ctest counts among those that did not fail. A run of no test is a failure.
count_ctest() {
  local line total bad skips
  line=$(grep -E 'tests? failed out of [0-9]+' "$log" | tail -1)
  if [ -z "$line" ]; then failed=$((failed + 1)); return; fi
  total=$(sed -E 's/.* out of ([0-9]+).*/\1/' <<<"$line")
  bad=$(sed -E 's/.* ([0-9]+) tests? failed out of.*/\1/' <<<"$line")
  skips=$(grep -cE '^[[:space:]]*[0-9]+ - .* \(Skipped\)$' "$log" || true)
  if [ "$total" -eq 0 ]; then failed=$((failed + 1)); return; fi
  passed=$((passed + total - bad - skips))
  failed=$((failed + bad))
  skipped=$((skipped + skips))
}

step "C++ formatting (.clang-format)"
# Every C++ file of ours as clang-format writes it: a file that is not
# fails (`clang-format -i FILE` rewrites it).
cxx_files=$(git ls-files 'src/*.cc' 'src/*.h' 'src/*.cpp' 'tests/*.cc' 'tests/*.h' \
  'include/*.h' 'bench/*.cc' 'bench/*.h' 2>/dev/null || true)
if [ -z "$cxx_files" ]; then
  echo "no C++ files listed (not a git checkout?)"
  failed=$((failed + 1))
elif clang-format --dry-run --Werror $cxx_files; then
  echo "$(wc -w <<<"$cxx_files") files formatted"
  passed=$((passed + 1))
else
  failed=$((failed + 1))
fi

# How busy or slow this host is now: a fixed decode (an 8 MB generated
# trace, --jobs 1) takes about 1 s on an idle 2-core machine of ours. The
# qemu tests' time limits grow by the same factor (1 to 8), so that a
# machine busy with other builds does not fail them.
time_scale() {
  local dir start end
  dir=$(mktemp -d)
  "$1/tests/perftk_etm_gen" --cpus 1 --trace-mb 8 --out "$dir" >/dev/null
  start=$(date +%s%N)
  "$1/src/perftk" cs-etm-decode -q --jobs 1 -i "$dir/perf.data" --format=autofdo -o /dev/null
  end=$(date +%s%N)
  rm -rf "$dir"
  awk -v ns=$((end - start)) 'BEGIN { s = int(ns / 1e9 + 0.999); if (s < 1) s = 1; if (s > 8) s = 8; print s }'
}

step "release build: unit and shell tests"
configure_release
build build
scale=$(time_scale build)
echo "host speed: the qemu tests' time limit is ${scale} x 300 s"
cmake -S . -B build -DPERFTK_TEST_TIME_SCALE="$scale" >/dev/null
ctest --test-dir build --output-on-failure -j"$jobs" 2>&1 | tee "$log" || true
count_ctest

step "ASan+UBSan build: unit and shell tests"
configure_asan
build build-asan
scale=$(time_scale build-asan)
echo "host speed (ASan build): the qemu tests' time limit is ${scale} x 300 s"
cmake -S . -B build-asan -DPERFTK_TEST_TIME_SCALE="$scale" >/dev/null
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j"$jobs" 2>&1 | tee "$log" || true
count_ctest

step "TSan build: the tests labelled tsan (tests/CMakeLists.txt: the machine model, --jobs, jit's file creator)"
configure_tsan
build build-tsan perftk_tsan_tests
ctest --test-dir build-tsan -L tsan --output-on-failure -j"$jobs" 2>&1 | tee "$log" || true
count_ctest

if [ ! -x tests/fuzz/run.sh ]; then
  step "fuzzing: tests/fuzz/run.sh is not executable, so no fuzzer can run"
  failed=$((failed + 1))
else
  step "fuzzing the perf.data reader for ${FUZZ_SECONDS:-60} s"
  configure_fuzz
  build build-fuzz perftk_reader_fuzzer
  if tests/fuzz/run.sh build-fuzz/tests/fuzz/perftk_reader_fuzzer "${FUZZ_SECONDS:-60}"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
  fi
  # cs-etm-decode's inputs: the AUXTRACE_INFO parser and the decoder entry,
  # seeded from the real ETM recordings when they are there.
  etm=tests/data/simpleperf-etm
  seeds=$(mktemp -d)
  if [ -r "$etm/perf_etm.data" ]; then
    python3 tests/fuzz/cs_etm_seeds.py "$etm" "$seeds/info" "$seeds/decoder"
  fi
  mkdir -p "$seeds/info" "$seeds/decoder"
  build build-fuzz perftk_cs_etm_info_fuzzer perftk_cs_etm_decoder_fuzzer
  for target in info decoder; do
    step "fuzzing cs-etm-decode's $target entry for ${ETM_FUZZ_SECONDS:-15} s"
    if PERFTK_FUZZ_SEEDS="$seeds/$target" tests/fuzz/run.sh \
        "build-fuzz/tests/fuzz/perftk_cs_etm_${target}_fuzzer" "${ETM_FUZZ_SECONDS:-15}"; then
      passed=$((passed + 1))
    else
      failed=$((failed + 1))
    fi
  done
  # perftk unwind --jobs 2 on fuzzed recordings (seeded with tests/data).
  build build-fuzz perftk_unwind_fuzzer
  step "fuzzing unwind --jobs 2 for ${ETM_FUZZ_SECONDS:-15} s"
  if tests/fuzz/run.sh build-fuzz/tests/fuzz/perftk_unwind_fuzzer "${ETM_FUZZ_SECONDS:-15}"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
  fi
  # merge-profiles' inputs, seeded with an AutoFDO and a BOLT text.
  mkdir -p "$seeds/profile"
  if [ -r "$etm/perf_inject.data" ]; then
    cp "$etm/perf_inject.data" "$seeds/profile/autofdo.txt"
    build/src/perftk cs-etm-decode -q -i "$etm/perf_etm.data" --symfs "$etm" --format=bolt \
      -o "$seeds/profile/bolt.fdata" || true
  fi
  build build-fuzz perftk_profile_text_fuzzer
  step "fuzzing merge-profiles' text reader for ${ETM_FUZZ_SECONDS:-15} s"
  if PERFTK_FUZZ_SEEDS="$seeds/profile" tests/fuzz/run.sh \
      build-fuzz/tests/fuzz/perftk_profile_text_fuzzer "${ETM_FUZZ_SECONDS:-15}"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
  fi
  # The build-id tool on fuzzed recordings (seeded with tests/data): the
  # names a recording gives, under a --symfs of FIFOs and devices.
  build build-fuzz perftk_build_id_fuzzer
  step "fuzzing the build-id tool's recorded names for ${ETM_FUZZ_SECONDS:-15} s"
  if tests/fuzz/run.sh build-fuzz/tests/fuzz/perftk_build_id_fuzzer "${ETM_FUZZ_SECONDS:-15}"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
  fi
  # --format=llvm-sample's DWARF reader, seeded with two small binaries
  # with DWARF: the test workload (x86-64, gcc) and perftk_etm_gen's
  # program (AArch64, hand-made DWARF 4).
  mkdir -p "$seeds/elf"
  cc -O1 -g -o "$seeds/elf/workload" tests/shell/lib/workload.c -lpthread
  build/tests/perftk_etm_gen --cpus 1 --trace-mb 0.05 --out "$seeds/gen" >/dev/null
  cp "$seeds/gen/etm_demo" "$seeds/elf/"
  build build-fuzz perftk_llvm_sample_fuzzer
  step "fuzzing --format=llvm-sample's DWARF reader for ${ETM_FUZZ_SECONDS:-15} s"
  if PERFTK_FUZZ_SEEDS="$seeds/elf" tests/fuzz/run.sh \
      build-fuzz/tests/fuzz/perftk_llvm_sample_fuzzer "${ETM_FUZZ_SECONDS:-15}"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
  fi
  rm -rf "$seeds"
fi

step "the checkout is as the tests found it"
if [ "$(checkout_state)" = "$checkout_before" ]; then
  passed=$((passed + 1))
else
  diff <(echo "$checkout_before") <(checkout_state) || true
  failed=$((failed + 1))
fi

echo
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
