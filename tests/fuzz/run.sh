#!/bin/bash
# Runs an already-built fuzzer for a bounded time over a copy of a seed
# corpus, in a temporary directory: the files of $PERFTK_FUZZ_SEEDS when set
# (see cs_etm_seeds.py), else the perf.data seeds (tests/data/*.data and
# tests/data/synthetic/*). Builds nothing. Exits non-zero if the fuzzer finds
# a crash, a leak, a sanitizer report or a timeout; the reproducer is copied
# to $PERFTK_FUZZ_ARTIFACTS (default: ./fuzz-artifacts).
#
#   tests/fuzz/run.sh FUZZER [SECONDS] [extra libFuzzer flags...]
#   tests/fuzz/run.sh build-fuzz/tests/fuzz/perftk_reader_fuzzer 60
set -euo pipefail

if [[ $# -lt 1 ]]; then
  echo "usage: $0 FUZZER [SECONDS] [libFuzzer flags...]" >&2
  exit 2
fi
fuzzer=$(realpath "$1")
seconds=${2:-60}
shift $(( $# >= 2 ? 2 : 1 ))
if [[ ! -x $fuzzer ]]; then
  echo "$0: $fuzzer is not an executable (build it with -DPERFTK_FUZZ=ON)" >&2
  exit 2
fi

here=$(cd "$(dirname "$0")" && pwd)
data=$here/../data
artifacts=$(realpath -m "${PERFTK_FUZZ_ARTIFACTS:-fuzz-artifacts}")
work=$(mktemp -d "${TMPDIR:-/tmp}/perftk-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT

mkdir -p "$work/corpus" "$work/artifacts"
if [[ -n ${PERFTK_FUZZ_SEEDS:-} ]]; then
  if compgen -G "$PERFTK_FUZZ_SEEDS/*" > /dev/null; then cp "$PERFTK_FUZZ_SEEDS"/* "$work/corpus/"; fi
else
  cp "$data"/*.data "$work/corpus/"
  if [[ -d $data/synthetic ]]; then cp "$data"/synthetic/* "$work/corpus/"; fi
fi
echo "fuzzing $fuzzer for ${seconds}s over $(ls "$work/corpus" | wc -l) seeds in $work"

set +e
(cd "$work" && "$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -max_len=65536 -print_final_stats=1 -artifact_prefix="$work/artifacts/" \
    "$@" corpus) > "$work/log" 2>&1
status=$?
set -e
# Progress lines are many; show the rest (errors, final stats).
grep -vE '^#[0-9]+[[:space:]]+(NEW|REDUCE|pulse|RELOAD)' "$work/log" | tail -n 60
if compgen -G "$work/artifacts/*" > /dev/null; then
  [[ $status -ne 0 ]] || status=1
  mkdir -p "$artifacts"
  cp "$work"/artifacts/* "$artifacts/"
  echo "reproducers copied to $artifacts:"
  ls -la "$artifacts"
fi
echo "fuzzer exit status $status"
exit "$status"
