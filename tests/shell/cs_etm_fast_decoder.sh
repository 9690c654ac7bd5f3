#!/usr/bin/env bash
# cs-etm-decode's fast decoder (issue 29) writes the bytes OpenCSD's path
# (--decoder=opencsd) writes, in every format, with --jobs 1 and 2, and it is
# the one that decodes: the summary line must count every block as the
# fast decoder's (a silent fall back to OpenCSD cannot pass as speed), and
# count OpenCSD's packets.
# Recordings: the generator's (4 CPUs, thread switches inside buffers,
# kernel code entered by exceptions and left by ERET, raw TRBE-like streams
# too), from ETMv4 and from ETE units, simpleperf's real ETMv4 recording, a
# 50-fold replay of it, and simpleperf's real ETE recording (raw, TRBE).
source "$(dirname "$0")/lib/common.bash"
ETM=${PERFTK_ETM_DATA_DIR:-$(dirname "$0")/../data/simpleperf-etm}
[ -r "$ETM/perf_etm.data" ] || skip "no simpleperf ETM recordings at $ETM"
GEN=${ETM_GEN:-$(dirname "$(dirname "$PERFTK")")/tests/perftk_etm_gen}
[ -x "$GEN" ] || skip "no perftk_etm_gen at $GEN"
REPLAY=$LIB_DIR/../../cs_etm/replay_etm_trace.py
command -v python3 >/dev/null || skip "no python3"

# An ASan build decodes 5-10 times slower: a quarter of the trace, many
# buffers still (the same code paths, fewer rounds of them; CI runs both).
mb=1 mb4=2
if asan_build; then mb=0.25 mb4=0.5; fi
"$GEN" --cpus 4 --trace-mb "$mb4" --buffer-kb 64 --switch-every 2000 --syscalls-per-mille 100 \
  --out gen >/dev/null || fail "perftk_etm_gen failed"
"$GEN" --cpus 2 --trace-mb "$mb" --buffer-kb 32 --raw --out raw >/dev/null || fail "perftk_etm_gen --raw failed"
"$GEN" --cpus 2 --trace-mb "$mb" --buffer-kb 32 --switch-every 2000 --syscalls-per-mille 100 --ete \
  --out ete_gen >/dev/null || fail "perftk_etm_gen --ete failed"
"$GEN" --cpus 2 --trace-mb "$mb" --buffer-kb 32 --syscalls-per-mille 100 --ete --raw --out ete_raw \
  >/dev/null || fail "perftk_etm_gen --ete --raw failed"
python3 "$REPLAY" "$ETM/perf_etm.data" etm_big.data 24 50
cases="gen:gen/perf.data: raw:raw/perf.data: etm:$ETM/perf_etm.data:$ETM"
cases+=" ete_gen:ete_gen/perf.data: ete_raw:ete_raw/perf.data:"
cases+=" ete:$ETM/perf_with_unformatted_trace.data:$ETM"
# The 50-fold replay takes a minute under ASan, and adds no new code paths.
asan_build || cases+=" big:etm_big.data:$ETM"

# decode NAME INPUT SYMFS DECODER JOBS FORMAT ITRACE: output NAME, stderr NAME.err.
decode() {
  "$PERFTK" cs-etm-decode -i "$2" ${3:+--symfs "$3"} --decoder="$4" --jobs "$5" --format="$6" \
    --itrace="$7" -o "$1" 2>"$1.err" || fail "cs-etm-decode $* failed: $(tail -1 "$1.err")"
}
# blocks_by NAME WHICH: the summary's count of blocks decoded by WHICH.
# (The summary is one line.)
blocks_by() { sed -nE "s/.* ([0-9]+) by $2.*/\1/p" "$1.err"; }
total_blocks() { sed -nE 's/.*: ([0-9]+) trace blocks.*/\1/p' "$1.err"; }
# packets NAME: the summary's count of packets (a replayed path counts as
# the packets it stands for).
packets() { sed -nE 's/.* ([0-9]+) packets.*/\1/p' "$1.err"; }

compared=0
for case in $cases; do
  IFS=: read -r label input symfs <<<"$case"
  for spec in perf:i100il64 perf:b script:i1000il16 autofdo:il64 bolt:il64; do
    format=${spec%%:*}
    itrace=${spec#*:}
    case $label in etm | big | ete) ;; *) [ "$format" = bolt ] && continue ;; esac  # several binaries
    name=$label.$format.$itrace
    decode "$name.opencsd" "$input" "$symfs" opencsd 1 "$format" "$itrace"
    [ -s "$name.opencsd" ] || fail "$name: OpenCSD's path wrote nothing"
    for jobs in 1 2; do
      decode "$name.fast$jobs" "$input" "$symfs" fast "$jobs" "$format" "$itrace"
      cmp -s "$name.opencsd" "$name.fast$jobs" ||
        fail "$name: the fast decoder (--jobs $jobs) writes other bytes than OpenCSD's path"
      total=$(total_blocks "$name.fast$jobs")
      [ "${total:-0}" -gt 0 ] || fail "$name: no blocks decoded: $(tail -1 "$name.fast$jobs.err")"
      [ "$(blocks_by "$name.fast$jobs" 'the fast decoder')" = "$total" ] ||
        fail "$name: not every block was the fast decoder's: $(grep 'trace blocks' "$name.fast$jobs.err")"
      [ "$(packets "$name.fast$jobs")" = "$(packets "$name.opencsd")" ] ||
        fail "$name: the fast decoder (--jobs $jobs) counts other packets than OpenCSD's path"
      compared=$((compared + 1))
    done
    [ "$(blocks_by "$name.opencsd" OpenCSD)" = "$(total_blocks "$name.opencsd")" ] ||
      fail "$name: --decoder=opencsd left blocks to the fast decoder"
  done
done

echo "ok: $compared fast decodes byte-identical to OpenCSD's path, every block the fast decoder's"
