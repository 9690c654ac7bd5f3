#!/usr/bin/env bash
# Node.js in its own pid namespace (as in a container): it is pid 1 there and
# writes jit-1.dump, while perf records it under its pid outside. perftk jit
# finds the dump (its header says pid 1), names the files jitted-1-<n>.so as
# perf does, and gives the injected maps node's outer pid.
#
# Debian's perf 6.1 inject does not find such a dump (its jit_detect compares
# the name's pid with the outer one); newer perf accepts it (2024-25 fixes,
# "perf jitdump: Fix PID namespace detection"). So the oracle is perf's own
# output where perf resolved a symbol: every such sample must be the same,
# and perftk must resolve the JS functions perf left as addresses.
source "$(dirname "$0")/lib/common.bash"
source "$LIB_DIR/jit_node.bash"
require_perf
require_node
[ "$(id -u)" = 0 ] || skip "unshare --pid needs root"
unshare -p -f --mount-proc true 2>/dev/null || skip "unshare --pid --mount-proc does not work here"

write_bench_js
perf record -q -k 1 -e cpu-clock -o perf.data -- unshare -p -f --mount-proc \
  node --perf-prof bench.js >node.out 2>node.err || skip "perf record of node failed: $(tail -1 node.err)"
[ -f jit-1.dump ] || fail "node in its pid namespace wrote no jit-1.dump: $(ls)"
node_pid=$(perf script -i perf.data -F pid,comm 2>/dev/null | awk '$1 == "node" && !p { p = $2 } END { print p }')
[ -n "$node_pid" ] && [ "$node_pid" != 1 ] || fail "no samples of node under its outer pid"

perf_inject_jit perf.data perf.jit.data
mkdir ours
perftk_jit -i perf.data -o ours.data --jit-dir ours
[ -f ours/jitted-1-1.so ] || fail "no ours/jitted-1-1.so: $(ls ours | head -3)"

report_of ours.data --sort sym -g none >ours.report
grep -q 'JS:\*fib' ours.report || fail "no JS:*fib in perftk's report: $(head -3 ours.report)"

# The injected maps: node's outer pid and tid, none with a namespace pid.
perf script -i ours.data --show-mmap-events 2>/dev/null |
  sed -nE 's/.*PERF_RECORD_MMAP2 ([0-9]+)\/([0-9]+):.*jitted-1-.*/\1 \2/p' | sort -u >ours.mmap.pids
[ "$(cat ours.mmap.pids)" = "$node_pid $node_pid" ] ||
  fail "injected maps have pid/tid $(head -3 ours.mmap.pids | tr '\n' ';'), want $node_pid $node_pid"

# Sample by sample: wherever perf found a symbol, perftk finds the same one,
# except in V8's builtins, which lie in node's text: perf names them from
# node (Builtins_Call_ReceiverIsAny), perftk from the dump (Builtin:Call_...).
samples_of perf.jit.data >expected.samples
samples_of ours.data >ours.samples
[ "$(wc -l <expected.samples)" = "$(wc -l <ours.samples)" ] || fail "sample counts differ"
paste -d '\n' expected.samples ours.samples |
  awk 'NR % 2 == 1 { e = $0; next } e !~ /\[unknown\]| Builtins_/ && e != $0 { print "perf:   " e; print "perftk: " $0; n++ }
       END { exit n > 0 }' >mismatch || { head -6 mismatch >&2; fail "perftk resolves samples differently where perf resolved them"; }
perf_unknown=$(grep -c '\[unknown\]' expected.samples || true)
ours_unknown=$(grep -c '\[unknown\]' ours.samples || true)
if grep -q 'JS:' expected.samples; then
  same_listing "perf script samples (this perf resolves namespaced dumps)" expected.samples ours.samples
else
  echo "note: this perf inject --jit did not resolve the namespaced dump ($perf_unknown unresolved samples)"
  [ "$ours_unknown" -lt "$perf_unknown" ] || fail "perftk resolved no more samples than perf"
fi
echo "ok: node pid $node_pid (1 inside); unresolved samples perf $perf_unknown, perftk $ours_unknown"
