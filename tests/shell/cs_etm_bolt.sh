#!/usr/bin/env bash
# BOLT's own converter (perf2bolt of Debian bolt-16) eats both of perftk's
# routes on the real simpleperf recording of etm_test_loop:
#   - --format=bolt, read with perf2bolt --pa: the .fdata it writes has the
#     loop's two back edges, 0x106c->0x1074 and 0x1080->0x105c, 100 times each;
#   - the perf.data with branch stacks, read with perf2bolt -p (it runs
#     perf script): the same two edges are there.
# The .fdata names a branch "1 FUNC OFFSET" (1: a symbol, OFFSET in hex from
# the function's start); in this stripped binary BOLT names functions from
# their FDEs, __BOLT_FDE_FUNCat<start>, so FUNC + OFFSET is the address.
# Then, on recordings made by perftk_etm_gen: --dso; a binary laid out as lld
# does (BOLT reads virtual addresses, not file offsets); a trace through two
# binaries, which one BOLT text cannot hold.
source "$(dirname "$0")/lib/common.bash"
ETM=${PERFTK_ETM_DATA_DIR:-$(dirname "$0")/../data/simpleperf-etm}
[ -r "$ETM/perf_etm.data" ] || skip "no simpleperf ETM recordings at $ETM"
PERF2BOLT=${PERF2BOLT:-/usr/lib/llvm-16/bin/perf2bolt}
[ -x "$PERF2BOLT" ] || skip "no perf2bolt at $PERF2BOLT (Debian: bolt-16)"

# "from->to count" per branch of an .fdata whose ends are both known places.
edges_of() {
  local is_sym from off is_sym2 to off2 mispred count
  while read -r is_sym from off is_sym2 to off2 mispred count; do
    [[ $is_sym == 1 && $is_sym2 == 1 && $from == *FUNCat* && $to == *FUNCat* ]] || continue
    printf '%x->%x %d\n' $((0x${from##*FUNCat} + 0x$off)) $((0x${to##*FUNCat} + 0x$off2)) "$count"
  done <"$1"
}

"$PERFTK" cs-etm-decode -i "$ETM/perf_etm.data" --symfs "$ETM" --format=bolt -o prog.pa 2>pa.err ||
  fail "cs-etm-decode --format=bolt: $(tail -1 pa.err)"
"$PERF2BOLT" --pa -p prog.pa -o pa.fdata "$ETM/etm_test_loop" >pa.log 2>&1 ||
  fail "perf2bolt --pa rejects --format=bolt: $(grep -i error pa.log | head -2)"
grep -q "BOLT profile of /data/local/tmp/etm_test_loop" pa.err || fail "no binary named on stderr"
edges_of pa.fdata >pa.edges
for edge in 106c-\>1074 1080-\>105c; do
  grep -qx "$edge 100" pa.edges || fail "perf2bolt --pa: no $edge 100 in: $(tr '\n' ';' <pa.edges)"
done

"$PERFTK" cs-etm-decode -q -i "$ETM/perf_etm.data" --symfs "$ETM" --itrace=il64 -o inj.data
# perf2bolt runs perf script and perf buildid-list on inj.data; their
# caches stay in the work directory.
HOME=$WORK "$PERF2BOLT" -p inj.data -o perf.fdata "$ETM/etm_test_loop" >perf.log 2>&1 ||
  fail "perf2bolt -p rejects the perf.data output: $(grep -i error perf.log | head -2)"
grep -q "matched build-id and file name" perf.log || fail "perf2bolt did not match the build id"
edges_of perf.fdata >perf.edges
for edge in 106c-\>1074 1080-\>105c; do
  awk -v e="$edge" '$1 == e && $2 > 0 { found = 1 } END { exit !found }' perf.edges ||
    fail "perf2bolt -p: no $edge in: $(tr '\n' ';' <perf.edges)"
done
echo "ok: perf2bolt --pa sees both back edges 100 times; perf2bolt -p sees them too" \
  "($(tr '\n' ';' <perf.edges))"

# --dso picks the binary by file name (or recorded path); a binary the trace
# did not run in is an error that lists the ones it did, and writes nothing.
"$PERFTK" cs-etm-decode -q -i "$ETM/perf_etm.data" --symfs "$ETM" --format=bolt \
  --dso etm_test_loop -o named.pa
cmp -s named.pa prog.pa || fail "--dso etm_test_loop gives another profile"
if "$PERFTK" cs-etm-decode -q -i "$ETM/perf_etm.data" --symfs "$ETM" --format=bolt \
  --dso libc.so -o none.pa 2>dso.err; then
  fail "--dso libc.so (not traced) succeeded"
fi
[ ! -e none.pa ] || fail "--dso libc.so left an output file"
grep -q "it ran in: /data/local/tmp/etm_test_loop" dso.err || fail "error lists no binary: $(cat dso.err)"
echo "ok: --dso"

# A generated recording whose binary is laid out as lld does (code at vaddr =
# file offset + 0x10000, in a second PT_LOAD): perf2bolt reads addresses
# as virtual addresses, so the calls main+0x4 -> leaf_loop and the loop
# main+0x20 -> main must be there as often as the generator took them.
GEN=${ETM_GEN:-$(dirname "$(dirname "$PERFTK")")/tests/perftk_etm_gen}
if [ ! -x "$GEN" ]; then
  echo "note: no perftk_etm_gen at $GEN: the lld layout is not checked"
  exit 0
fi
"$GEN" --cpus 2 --trace-mb 1 --buffer-kb 32 --syscalls-per-mille 0 --text-vaddr-delta 0x10000 \
  --expect-itrace i1000il64 --expect-autofdo expected.txt --out gen >gen.txt ||
  fail "perftk_etm_gen failed"
head_of() { awk -v f="$1" '$1 == "text" && $2 == f { print $4 }' expected.txt; }
"$PERFTK" cs-etm-decode -q -i gen/perf.data --format=bolt -o gen.pa
"$PERF2BOLT" --pa -p gen.pa -o gen.fdata gen/etm_demo >gen.log 2>&1 ||
  fail "perf2bolt --pa on the generated binary: $(grep -i error gen.log | head -2)"
for edge in "main 4 1 leaf_loop 0 0 $(head_of leaf_loop)" "main 20 1 main 0 0 $(head_of main)"; do
  grep -qx "1 $edge" gen.fdata || fail "perf2bolt --pa (lld layout): no '1 $edge' in gen.fdata"
done
echo "ok: perf2bolt --pa on an lld-style binary: calls and loop edge as generated"

# A trace through two binaries (syscalls into the kernel image): one BOLT
# text cannot hold both, so without --dso it is an error naming them, and
# --dso etm_demo writes that one.
"$GEN" --cpus 1 --trace-mb 0.2 --buffer-kb 16 --syscalls-per-mille 100 --out two >gen.txt ||
  fail "perftk_etm_gen failed"
if "$PERFTK" cs-etm-decode -q -i two/perf.data --format=bolt -o two.pa 2>two.err; then
  fail "--format=bolt on a trace through 2 binaries succeeded without --dso"
fi
[ ! -e two.pa ] || fail "the refused --format=bolt left two.pa"
for part in "the trace ran in 2: " "/etm_demo" "/etm_kernel.elf" "choose one with --dso"; do
  grep -qF "$part" two.err || fail "the error lacks '$part': $(cat two.err)"
done
"$PERFTK" cs-etm-decode -i two/perf.data --format=bolt --dso etm_demo -o two.pa 2>two.err
grep -q "BOLT profile of $PWD/two/etm_demo" two.err || fail "not etm_demo's profile: $(cat two.err)"
"$PERF2BOLT" --pa -p two.pa -o two.fdata two/etm_demo >two.log 2>&1 ||
  fail "perf2bolt --pa (etm_demo of two): $(grep -i error two.log | head -2)"
grep -q "^1 main " two.fdata || fail "no branch from main in two.fdata"
echo "ok: two binaries need --dso"
