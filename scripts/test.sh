#!/usr/bin/env bash
# Runs every test of perftk: the C++ formatting check (.clang-format), unit
# and shell tests (against the real perf) on the release build and on the
# ASan+UBSan build, the tests labelled tsan (the code that runs threads)
# under TSan, and seven fuzzers for a bounded time, two at a time: the
# perf.data reader (60 s), the two cs-etm entries, unwind --jobs 2,
# merge-profiles' text reader, the build-id tool's names and the
# llvm-sample DWARF reader (15 s each, under a 2 GB RSS limit). Configures
# and builds (incrementally) each of build/, build-asan/, build-tsan/ and
# build-fuzz/ before it runs its tests; the last three build ahead, at the
# lowest priority, while the release and ASan tests run. Ends with one
# line "N passed, M failed, K skipped" counting every test of every suite
# (and a check that the tests left the checkout as they found it); a
# skipped test (exit 77: perf cannot record here, an ASan build) is not a
# pass. Before it, the time each build and each suite took.
#   scripts/test.sh              # after scripts/setup.sh
#   FUZZ_SECONDS=10 ETM_FUZZ_SECONDS=5 scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
source scripts/lib/build.bash
log=$(mktemp)
ahead=$(mktemp -d)
ahead_pid=
# On the way out: the builds ahead stop if still running (their group is
# usually gone by then, and a failed kill under set -e would make the exit
# status 1 after every test passed), the temporaries go.
clean_up() {
  if [ -n "$ahead_pid" ]; then kill -- -"$ahead_pid" 2>/dev/null || true; fi
  rm -f "$log"
  rm -rf "$ahead"
}
trap clean_up EXIT
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

# The fuzzers, "TARGET SECONDS SEEDS WHAT" (WHAT's spaces written _), in
# two lanes of about the same time that run side by side (a fuzzer runs
# on one core): the reader (60 s), the build-id tool on fuzzed recordings
# (the names they give, under a --symfs of FIFOs and devices) and
# merge-profiles' text reader; the cs-etm AUXTRACE_INFO parser and decoder
# entry, unwind --jobs 2 on fuzzed recordings and the DWARF reader.
short=${ETM_FUZZ_SECONDS:-15}
lanes=("reader ${FUZZ_SECONDS:-60} none the_perf.data_reader
build_id $short none the_build-id_tool's_recorded_names
profile_text $short profile merge-profiles'_text_reader"
  "cs_etm_info $short info cs-etm-decode's_AUXTRACE_INFO_parser
cs_etm_decoder $short decoder cs-etm-decode's_decoder_entry
unwind $short none unwind_--jobs_2
llvm_sample $short elf --format=llvm-sample's_DWARF_reader")
fuzz_targets=$(printf '%s\n' "${lanes[@]}" | awk '{print "perftk_" $1 "_fuzzer"}' | tr '\n' ' ')

# The configurations after the release one build ahead, one after the
# other (ASan+UBSan, TSan, the fuzzers), at the lowest priority (nice 19)
# while the release and then the ASan tests run: they take only the CPU
# time the tests leave idle (tests that wait for perf, for a signal, for a
# pipe), not the tests' own, and each stage later waits for its build
# with the build's priority raised again (renice, where allowed), then
# runs ninja, which finds nothing left to do, or reports the build's
# error as before. The chain is a process group of its own (job control,
# set -m) but stays in this session: with the kernel's autogroups
# (sched_autogroup_enabled) a new session (setsid) gets its own group,
# which competes as an equal with the tests' whatever its nice value (the
# release tests took 535 s instead of 331 s so).
build_ahead() {
  set -m
  # shellcheck disable=SC2016
  nice -n 19 bash -c '
    set -e
    source scripts/lib/build.bash
    configure_asan && build build-asan && touch "$0/asan"
    configure_tsan && build build-tsan perftk_tsan_tests && touch "$0/tsan"
    configure_fuzz && build build-fuzz $1 && touch "$0/fuzz"
  ' "$ahead" "$fuzz_targets" >"$ahead/log" 2>&1 &
  ahead_pid=$!
  set +m
}
# built_ahead NAME: waits until the build ahead has made NAME (or stopped),
# at normal priority; what it builds next goes back to the lowest.
built_ahead() {
  [ -n "$ahead_pid" ] || return 0
  renice -n 0 -g "$ahead_pid" >/dev/null 2>&1 || true
  while [ ! -e "$ahead/$1" ] && kill -0 "$ahead_pid" 2>/dev/null; do sleep 1; done
  renice -n 19 -g "$ahead_pid" >/dev/null 2>&1 || true
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
build_ahead
ctest --test-dir build --output-on-failure -j"$jobs" 2>&1 | tee "$log" || true
count_ctest
lap "release: tests"

step "ASan+UBSan build: unit and shell tests"
built_ahead asan
configure_asan
build build-asan
lap "ASan+UBSan: build (ahead, then the rest)"
scale=$(time_scale build-asan)
echo "host speed (ASan build): the qemu tests' time limit is ${scale} x 300 s"
# The programs the shell tests cross-build are those of the release run.
cmake -S . -B build-asan -DPERFTK_TEST_TIME_SCALE="$scale" \
  -DPERFTK_TEST_PROGRAM_CACHE="$PWD/build/test-programs" >/dev/null
# The tests' own tools that make CoreSight recordings, the qemu recorder
# and the trace generator, are the release build's: they are fixtures
# here, not what is checked (their code runs under ASan in the unit tests,
# unit.cs_etm_gen), and ASan made them most of the qemu tests' time
# (cs_etm_qemu_zstd 52 s with the ASan recorder, 10 s without).
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  QEMU_ETM="$PWD/build/tests/perftk_qemu_etm" ETM_GEN="$PWD/build/tests/perftk_etm_gen" \
  ctest --test-dir build-asan --output-on-failure -j"$jobs" 2>&1 | tee "$log" || true
count_ctest
lap "ASan+UBSan: tests"

step "TSan build: the tests labelled tsan (tests/CMakeLists.txt: the machine model, --jobs, jit's file creator)"
built_ahead tsan
configure_tsan
build build-tsan perftk_tsan_tests
lap "TSan: build (ahead, then the rest)"
ctest --test-dir build-tsan -L tsan --output-on-failure -j"$jobs" 2>&1 | tee "$log" || true
count_ctest
lap "TSan: tests"

if [ ! -x tests/fuzz/run.sh ]; then
  step "fuzzing: tests/fuzz/run.sh is not executable, so no fuzzer can run"
  failed=$((failed + 1))
else
  # The fuzzers' seeds, one folder each (tests/data when empty).
  seeds=$(mktemp -d)
  mkdir -p "$seeds"/{none,info,decoder,profile,elf}
  # cs-etm-decode's inputs: the AUXTRACE_INFO parser and the decoder entry,
  # seeded from the real ETM recordings when they are there.
  etm=tests/data/simpleperf-etm
  if [ -r "$etm/perf_etm.data" ]; then
    python3 tests/fuzz/cs_etm_seeds.py "$etm" "$seeds/info" "$seeds/decoder"
  fi
  # merge-profiles' inputs: an AutoFDO and a BOLT text.
  if [ -r "$etm/perf_inject.data" ]; then
    cp "$etm/perf_inject.data" "$seeds/profile/autofdo.txt"
    build/src/perftk cs-etm-decode -q -i "$etm/perf_etm.data" --symfs "$etm" --format=bolt \
      -o "$seeds/profile/bolt.fdata" || true
  fi
  # --format=llvm-sample's DWARF reader: two small binaries with DWARF, the
  # test workload (x86-64, gcc) and perftk_etm_gen's program (AArch64,
  # hand-made DWARF 4).
  cc -O1 -g -o "$seeds/elf/workload" tests/shell/lib/workload.c -lpthread
  build/tests/perftk_etm_gen --cpus 1 --trace-mb 0.05 --out "$seeds/gen" >/dev/null
  cp "$seeds/gen/etm_demo" "$seeds/elf/"
  built_ahead fuzz
  configure_fuzz
  # shellcheck disable=SC2086
  build build-fuzz $fuzz_targets
  lap "fuzz: build $(wc -w <<<"$fuzz_targets") fuzzers (ahead, then the rest)"
  # run_lane N: runs lane N's fuzzers one after the other, each into
  # $seeds/N.TARGET.log and its exit status into $seeds/N.TARGET.status.
  run_lane() {
    local target seconds seed what status
    while read -r target seconds seed what; do
      [ "$seed" = none ] && seed=
      status=0
      PERFTK_FUZZ_SEEDS=${seed:+$seeds/$seed} tests/fuzz/run.sh \
        "build-fuzz/tests/fuzz/perftk_${target}_fuzzer" "$seconds" >"$seeds/$1.$target.log" 2>&1 ||
        status=$?
      echo "$status" >"$seeds/$1.$target.status"
    done <<<"${lanes[$1]}"
  }
  run_lane 0 &
  run_lane 1 &
  wait
  for lane in 0 1; do
    while read -r target seconds seed what; do
      step "fuzzing ${what//_/ } for $seconds s"
      cat "$seeds/$lane.$target.log"
      if [ "$(cat "$seeds/$lane.$target.status" 2>/dev/null)" = 0 ]; then
        passed=$((passed + 1))
      else
        failed=$((failed + 1))
      fi
    done <<<"${lanes[$lane]}"
  done
  rm -rf "$seeds"
  lap "fuzz: run them, two at a time"
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
