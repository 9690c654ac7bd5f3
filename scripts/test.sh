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
# Before it, the time each build and each suite took.
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
# lap LABEL: the time since the last lap is LABEL's (printed at the end).
laps=()
lap_start=$SECONDS
lap() {
  laps+=("$(printf '%6d s  %s' $((SECONDS - lap_start)) "$1")")
  lap_start=$SECONDS
}
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

lap "formatting"

step "release build: unit and shell tests"
configure_release
build build
lap "release: build"
scale=$(time_scale build)
echo "host speed: the qemu tests' time limit is ${scale} x 300 s"
cmake -S . -B build -DPERFTK_TEST_TIME_SCALE="$scale" >/dev/null
ctest --test-dir build --output-on-failure -j"$jobs" 2>&1 | tee "$log" || true
count_ctest
lap "release: tests"

step "ASan+UBSan build: unit and shell tests"
configure_asan
build build-asan
lap "ASan+UBSan: build"
scale=$(time_scale build-asan)
echo "host speed (ASan build): the qemu tests' time limit is ${scale} x 300 s"
# The programs the shell tests cross-build are those of the release run.
cmake -S . -B build-asan -DPERFTK_TEST_TIME_SCALE="$scale" \
  -DPERFTK_TEST_PROGRAM_CACHE="$PWD/build/test-programs" >/dev/null
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j"$jobs" 2>&1 | tee "$log" || true
count_ctest
lap "ASan+UBSan: tests"

step "TSan build: the tests labelled tsan (tests/CMakeLists.txt: the machine model, --jobs, jit's file creator)"
configure_tsan
build build-tsan perftk_tsan_tests
lap "TSan: build"
ctest --test-dir build-tsan -L tsan --output-on-failure -j"$jobs" 2>&1 | tee "$log" || true
count_ctest
lap "TSan: tests"

if [ ! -x tests/fuzz/run.sh ]; then
  step "fuzzing: tests/fuzz/run.sh is not executable, so no fuzzer can run"
  failed=$((failed + 1))
else
  # fuzz WHAT TARGET SECONDS [SEEDS]: builds perftk_TARGET_fuzzer, runs it for
  # SECONDS over SEEDS (a folder; tests/data by default) and counts the run.
  fuzz() {
    local what=$1 target=perftk_$2_fuzzer seconds=$3 seeds=${4:-}
    build build-fuzz "$target"
    lap "fuzz: build $target"
    step "fuzzing $what for $seconds s"
    if PERFTK_FUZZ_SEEDS="$seeds" tests/fuzz/run.sh "build-fuzz/tests/fuzz/$target" "$seconds"; then
      passed=$((passed + 1))
    else
      failed=$((failed + 1))
    fi
    lap "fuzz: run $target"
  }
  configure_fuzz
  fuzz "the perf.data reader" reader "${FUZZ_SECONDS:-60}"
  # cs-etm-decode's inputs: the AUXTRACE_INFO parser and the decoder entry,
  # seeded from the real ETM recordings when they are there.
  etm=tests/data/simpleperf-etm
  seeds=$(mktemp -d)
  if [ -r "$etm/perf_etm.data" ]; then
    python3 tests/fuzz/cs_etm_seeds.py "$etm" "$seeds/info" "$seeds/decoder"
  fi
  mkdir -p "$seeds/info" "$seeds/decoder"
  for target in info decoder; do
    fuzz "cs-etm-decode's $target entry" "cs_etm_$target" "${ETM_FUZZ_SECONDS:-15}" "$seeds/$target"
  done
  # perftk unwind --jobs 2 on fuzzed recordings (seeded with tests/data).
  fuzz "unwind --jobs 2" unwind "${ETM_FUZZ_SECONDS:-15}"
  # merge-profiles' inputs, seeded with an AutoFDO and a BOLT text.
  mkdir -p "$seeds/profile"
  if [ -r "$etm/perf_inject.data" ]; then
    cp "$etm/perf_inject.data" "$seeds/profile/autofdo.txt"
    build/src/perftk cs-etm-decode -q -i "$etm/perf_etm.data" --symfs "$etm" --format=bolt \
      -o "$seeds/profile/bolt.fdata" || true
  fi
  fuzz "merge-profiles' text reader" profile_text "${ETM_FUZZ_SECONDS:-15}" "$seeds/profile"
  # The build-id tool on fuzzed recordings (seeded with tests/data): the
  # names a recording gives, under a --symfs of FIFOs and devices.
  fuzz "the build-id tool's recorded names" build_id "${ETM_FUZZ_SECONDS:-15}"
  # --format=llvm-sample's DWARF reader, seeded with two small binaries
  # with DWARF: the test workload (x86-64, gcc) and perftk_etm_gen's
  # program (AArch64, hand-made DWARF 4).
  mkdir -p "$seeds/elf"
  cc -O1 -g -o "$seeds/elf/workload" tests/shell/lib/workload.c -lpthread
  build/tests/perftk_etm_gen --cpus 1 --trace-mb 0.05 --out "$seeds/gen" >/dev/null
  cp "$seeds/gen/etm_demo" "$seeds/elf/"
  fuzz "--format=llvm-sample's DWARF reader" llvm_sample "${ETM_FUZZ_SECONDS:-15}" "$seeds/elf"
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
echo "Where the time went:"
printf '%s\n' "${laps[@]}"
printf '%6d s  in all\n' "$SECONDS"
echo
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
