#!/usr/bin/env bash
# perftk cs-etm-decode --jobs 2 and 4 write the bytes of --jobs 1, in every
# format, with the same warnings and summary: on the real ETM recordings and
# on larger ones made from them (tests/cs_etm/replay_etm_trace.py: 24 more
# blocks over the recording's CPUs, each 50 copies of its trace), and perf
# reads the perf.data output.
source "$(dirname "$0")/lib/common.bash"
ETM=${PERFTK_ETM_DATA_DIR:-$(dirname "$0")/../data/simpleperf-etm}
[ -r "$ETM/perf_etm.data" ] || skip "no simpleperf ETM recordings at $ETM"
REPLAY=$LIB_DIR/../../cs_etm/replay_etm_trace.py
command -v python3 >/dev/null || skip "no python3"

# An ASan build decodes 5-10 times slower: the same 24 blocks, 10 copies
# of the trace in each (the same code paths, fewer rounds; CI runs both).
copies=50
if asan_build; then copies=10; fi
python3 "$REPLAY" "$ETM/perf_etm.data" etm_big.data 24 "$copies"
python3 "$REPLAY" "$ETM/perf_with_unformatted_trace.data" ete_big.data 24 "$copies"
inputs="$ETM/perf_etm.data $ETM/perf_with_unformatted_trace.data etm_big.data ete_big.data"

decode() {  # input format itrace jobs output
  "$PERFTK" cs-etm-decode -i "$1" --symfs "$ETM" --format="$2" --itrace="$3" --jobs "$4" -o "$5" \
    2>"$5.err" || fail "cs-etm-decode $* failed: $(cat "$5.err")"
}

n=0
for input in $inputs; do
  for spec in perf:i100il64 perf:b script:i1000il16 script:i37 autofdo:il64 bolt:il64; do
    format=${spec%%:*}
    itrace=${spec#*:}
    name=$(basename "$input").$format.$itrace
    decode "$input" "$format" "$itrace" 1 "$name.1"
    [ -s "$name.1" ] || fail "$name: --jobs 1 wrote nothing"
    for jobs in 2 4; do
      decode "$input" "$format" "$itrace" "$jobs" "$name.$jobs"
      cmp "$name.1" "$name.$jobs" || fail "$name: --jobs $jobs output differs from --jobs 1"
      # perftk's own lines (a sanitizer build adds its statistics).
      cmp <(grep '^perftk' "$name.1.err") <(grep '^perftk' "$name.$jobs.err") ||
        fail "$name: --jobs $jobs warnings/summary differ"
    done
    n=$((n + 1))
  done
done

# The big raw recording has samples on both CPUs, and perf reads the output.
if command -v perf >/dev/null; then
  perf script -i ete_big.data.perf.i100il64.2 -F cpu,ip 2>/dev/null | awk '{print $1}' | sort -u >cpus
  [ "$(wc -l <cpus)" -eq 2 ] || fail "expected samples on 2 CPUs, got: $(tr '\n' ' ' <cpus)"
fi
echo "ok: $n input/format pairs, jobs 2 and 4 equal to jobs 1"
