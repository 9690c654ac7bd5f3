#!/usr/bin/env bash
# perftk cs-etm-decode on a recording made by perftk_etm_gen (tests/cs_etm_gen):
# 4 CPUs, 8 threads of 4 processes sharing one binary, thread switches inside
# AUX buffers, syscalls into a kernel image. Every sample perftk writes must be
# the one the generator's ground truth gives (cpu, pid/tid, ip, branch stack),
# read back by the real perf; every sample names a thread of its own process,
# kernel samples lie in the kernel image.
# --jobs 2, once it exists, must write the same bytes as --jobs 1.
# With PERF_CORESIGHT=/path/to/perf (bench/build_perf_coresight.sh), perf
# decodes a user-only, timeless recording too: its instruction samples must
# be ours, address for address (perf 6.1 attributes samples near thread
# switches to the wrong thread, so pid/tid are not compared).
source "$(dirname "$0")/lib/common.bash"
require_perf
GEN=${ETM_GEN:-$(dirname "$(dirname "$PERFTK")")/tests/perftk_etm_gen}
[ -x "$GEN" ] || skip "no perftk_etm_gen at $GEN"

"$GEN" --cpus 4 --trace-mb 4 --buffer-kb 64 --switch-every 2000 --syscalls-per-mille 100 \
  --expect-itrace i1000il64 --expect-out expected.txt --out gen >gen.txt || fail "perftk_etm_gen failed"
"$PERFTK" cs-etm-decode -i gen/perf.data --itrace=i1000il64 -o out.data 2>decode.err ||
  fail "cs-etm-decode failed: $(tail -1 decode.err)"
grep -q warning decode.err && fail "warnings on a clean recording: $(grep warning decode.err | head -2)"
samples=$(sed -nE 's/.* ([0-9]+) instruction samples.*/\1/p' decode.err)
[ "${samples:-0}" -gt 1000 ] || fail "only ${samples:-0} instruction samples"

perf script -i out.data -F pid,tid,ip,cpu >script.txt 2>script.err || fail "perf script: $(tail -1 script.err)"
[ "$(wc -l <script.txt)" -eq "$samples" ] || fail "perf script shows $(wc -l <script.txt) samples, perftk wrote $samples"
# Every sample (cpu, pid/tid, ip, each branch-stack entry) is the ground
# truth's, in order per CPU.
perf script -i out.data -F cpu,pid,tid,ip,brstack 2>/dev/null | awk '{
  cpu = $2; gsub(/[\[\]]/, "", cpu); line = (cpu + 0) " " $1 " " $3
  for (i = 4; i <= NF; i++) { split($i, a, "/"); sub(/^0x/, "", a[1]); sub(/^0x/, "", a[2]); line = line " " a[1] ">" a[2] }
  print line }' | sort -s -n -k1,1 >got.txt
sort -s -n -k1,1 expected.txt >want.txt
[ "$(wc -l <want.txt)" -eq "$samples" ] || fail "the truth has $(wc -l <want.txt) samples, perftk wrote $samples"
cmp -s got.txt want.txt || fail "samples differ from the ground truth: $(diff got.txt want.txt | head -2 | cut -c1-160)"

# Threads are pid and pid + 1 of pids 1000, 1100, 1200, 1300; user code of
# process N is mapped at 0x55N0000000 + 0x1000..., the kernel at 0xffff8000100010xx.
awk '{
  split($1, t, "/"); pid = t[1]; tid = t[2]; ip = $3
  if (pid !~ /^1[0-3]00$/ || (tid != pid && tid != pid + 1)) { print "bad thread: " $0; bad = 1 }
  want = sprintf("55%d", (pid - 1000) / 100)
  if (ip !~ /^ffff80001000/ && substr(ip, 1, 3) != want) { print "foreign ip: " $0; bad = 1 }
  if (ip ~ /^ffff80001000/) kernel++
} END { if (bad) exit 1; if (kernel < 10) { print "only " kernel + 0 " kernel samples"; exit 1 } }' \
  script.txt >check.txt || fail "$(head -3 check.txt)"

# --jobs 2: identical output, or the not-yet-built refusal (exit 2, no file).
set +e
"$PERFTK" cs-etm-decode -q -i gen/perf.data --itrace=i1000il64 --jobs 2 -o out2.data 2>jobs2.err
status=$?
set -e
if [ $status -eq 0 ]; then
  cmp -s out.data out2.data || fail "--jobs 2 output differs from --jobs 1"
  echo "ok: --jobs 2 output identical"
else
  [ ! -e out2.data ] || fail "--jobs 2 failed (status $status) but left out2.data"
  echo "note: --jobs 2 not available (status $status): $(tail -1 jobs2.err)"
fi
if [ -n "${PERF_CORESIGHT:-}" ]; then
  [ -x "$PERF_CORESIGHT" ] || fail "PERF_CORESIGHT=$PERF_CORESIGHT is not executable"
  "$GEN" --cpus 4 --trace-mb 1 --buffer-kb 32 --switch-every 3000 --syscalls-per-mille 0 \
    --no-timestamps --out user >/dev/null || fail "perftk_etm_gen failed"
  "$PERFTK" copy -i user/perf.data -o indexed.data  # perf needs the AUXTRACE index
  HOME=$WORK "$PERF_CORESIGHT" script -i indexed.data --itrace=i7 -F ip 2>live.err |
    sed 's/^ *//' | sort >live.ips || fail "perf (CoreSight) failed: $(tail -1 live.err)"
  "$PERFTK" cs-etm-decode -q -i user/perf.data --itrace=i7 -o user.data
  perf script -i user.data -F ip | sed 's/^ *//' | sort >ours.ips
  [ "$(wc -l <ours.ips)" -gt 10000 ] || fail "only $(wc -l <ours.ips) samples"
  cmp -s live.ips ours.ips || fail "perf's instruction samples differ: $(diff live.ips ours.ips | grep -c '^[<>]') lines"
  echo "ok: live perf with CoreSight has the same $(wc -l <ours.ips) instruction samples"
fi
echo "ok: $samples samples, threads and code ranges as generated"
