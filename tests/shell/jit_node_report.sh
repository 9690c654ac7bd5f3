#!/usr/bin/env bash
# perftk jit and perftk jit --merge against perf inject --jit on a Node.js
# recording: the same JS symbols with the same percentages, the same symbol
# for every sample, perf script without warnings, nothing written to $HOME.
source "$(dirname "$0")/lib/common.bash"
source "$LIB_DIR/jit_node.bash"
require_perf
require_node

record_node perf.data
perf_inject_jit perf.data perf.jit.data
mkdir ours merged
perftk_jit -i perf.data -o ours.data --jit-dir ours
perftk_jit -i perf.data -o merged.data --jit-dir merged --merge

report_of perf.jit.data --sort sym -g none >expected.report
grep -q 'JS:\*fib' expected.report || fail "the oracle's report has no JS:*fib: $(head -3 expected.report)"
samples_of perf.jit.data >expected.samples
for out in ours merged; do
  report_of $out.data --sort sym -g none >$out.report
  same_listing "perf report --sort sym ($out)" expected.report $out.report
  samples_of $out.data >$out.samples
  same_listing "perf script samples ($out)" expected.samples $out.samples
  [ ! -s $out.data.script.err ] || fail "perf script warns on $out: $(head -3 $out.data.script.err)"
done

# One .so per CODE_LOAD, as perf writes them; with --merge one file.
perf_files=$(ls jitted-*.so | wc -l)
our_files=$(ls ours | wc -l)
[ "$perf_files" -gt 100 ] || fail "perf inject wrote only $perf_files .so files"
[ "$our_files" -eq "$perf_files" ] || fail "perftk wrote $our_files .so files, perf $perf_files"
merged_name=$(basename jit-*.dump .dump | sed 's/^jit-/jitted-/')-merged.so
[ -f "merged/$merged_name" ] || fail "--merge wrote no $merged_name: $(ls merged | head -3)"
[ "$(ls merged | wc -l)" -eq 1 ] || fail "--merge wrote $(ls merged | wc -l) files"

# The marker and the //anon maps of the node process are gone, as with perf.
for f in perf.jit.data ours.data; do
  perf script -i $f --show-mmap-events 2>/dev/null | grep -c 'PERF_RECORD_MMAP.*//anon' >$f.anon || true
  perf script -i $f --show-mmap-events 2>/dev/null | grep -c 'PERF_RECORD_MMAP.*jit-[0-9]*\.dump' >$f.marker || true
done
same_listing "//anon mmaps left" perf.jit.data.anon ours.data.anon
[ "$(cat ours.data.marker)" = 0 ] || fail "the jitdump marker mmap is still in the output"
echo "ok: $(wc -l <expected.report) report lines, $(wc -l <expected.samples) samples, $our_files .so files"
