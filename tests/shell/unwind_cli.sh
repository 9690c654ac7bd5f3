#!/usr/bin/env bash
# perftk unwind's command line: help, refusals (bad input: exit 1 naming the
# offset, no output left; the output may not be the input) and a recording
# without stack copies, whose samples pass unchanged.
source "$(dirname "$0")/lib/common.bash"
require_perf

expect_exit 0 "$PERFTK" help unwind
for word in Usage Examples --keep-stack --symfs 'no CFI' 'stack copy too short' 'unknown map' \
  inlined; do
  has -e "$word" cmd.out || fail "help unwind does not mention '$word'"
done
expect_exit 2 "$PERFTK" unwind -i x.data -o x.out --jobs 0  # out of range

build_workload
perf record -q -e cpu-clock --call-graph dwarf -o in.data -- ./workload 100 >/dev/null
head -c 20000 in.data >cut.data
expect_exit 1 "$PERFTK" unwind -i cut.data -o out.data
has 'cut.data: offset' cmd.err || fail "the error names no offset: $(cat cmd.err)"
[ ! -e out.data ] || fail "a partial output was left"
ls out.data.tmp.* >/dev/null 2>&1 && fail "a temporary output was left"
expect_exit 1 "$PERFTK" unwind -i in.data -o in.data
has 'the output (-o) is also the recording' cmd.err || fail "unwinding into the input: $(cat cmd.err)"

# Frame-pointer call chains: nothing to unwind, perf sees the same samples.
perf record -q -e cpu-clock -g -o fp.data -- ./workload 100 >/dev/null
expect_exit 0 "$PERFTK" unwind -i fp.data -o fp_out.data
has ' 0 of [0-9]* samples had a stack copy' cmd.err || fail "summary: $(cat cmd.err)"
script_of fp.data >fp.script
script_of fp_out.data >fp_out.script
same_listing "perf script of a recording without stack copies" fp.script fp_out.script
echo "ok: help, refusals, frame-pointer recording unchanged"
