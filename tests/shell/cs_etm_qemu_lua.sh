#!/usr/bin/env bash
# cs-etm-decode on a real program: the vendored Lua interpreter
# (third_party/lua), cross-built for aarch64 (non-PIE, dynamically linked,
# so its PLT, libc, libm and ld.so run too), runs a small script under
# qemu-aarch64, whose log of every executed instruction perftk_qemu_etm
# turns into a CoreSight perf.data and the exact ground truth of that run
# (tests/cs_etm_gen/qemu_recorder.h). Checked:
#   - the script prints what Lua must print;
#   - --format=autofdo equals the ground truth byte for byte: every range
#     and taken branch with its count, of lua, libc, libm and ld.so; and its
#     ranges hold every instruction qemu executed, once;
#   - --format=bolt --dso lua, libc.so.6: equal to the truth's BOLT texts
#     (virtual addresses, indirect branches with their targets);
#   - --itrace=i1000il64 (read back by the real perf script): every sample's
#     ip and 64-entry branch stack are the ground truth's (expected.h);
#   - --jobs 2 writes the same text (and il64 perf.data) as --jobs 1;
#   - the same run logged by translation blocks (qemu without -singlestep,
#     -d in_asm: --blocks, several times faster) gives the same perf.data
#     and truth, byte for byte (qemu runs with an empty environment and
#     Lua with a fixed string-hash seed, so that two runs are one);
#   - controls: the truth (and samples) of a run with another argument, and
#     the truth with one of lua's ranges moved by an instruction, differ
#     from what perftk decoded.
source "$(dirname "$0")/lib/common.bash"
source "$LIB_DIR/qemu_lua.bash"
require_qemu_etm
SCRIPT=$PERFTK_SOURCE_DIR/tests/shell/lib/qemu_workload.lua

start=$(seconds)
cached_build "$PERFTK_SOURCE_DIR/third_party/lua" lua build_lua lua aarch64-linux-gnu-gcc || fail "cannot build Lua"
echo "built lua in $(elapsed "$start") s"

# trace NAME ARG [--blocks]: runs the script with ARG under qemu
# (lib/qemu_etm.bash: NAME.out, NAME/perf.data, NAME.truth, NAME.samples).
trace() {
  local mode=steps
  [ -z "${3:-}" ] || mode=blocks
  qemu_etm_trace "$1" "$mode" lua "$SCRIPT" "$2"
}

trace run 18
printf '2584\t30428895\tTHE,QUICK,BROWN,FOX,JUMPS,OVER,THE,LAZY,DOG\tfalse\tboom\t1.414\n' >want.out
cmp -s want.out run.out || fail "lua printed: $(cat run.out)"

check_autofdo run "$PWD/lua"

check_bolt run lua libc.so.6
check_ranges_hold_executed run.stats got.afdo

if check_il64 run; then
  "$PERFTK" cs-etm-decode -q -i run/perf.data --itrace=i1000il64 --jobs 2 -o il64.jobs2.data
  cmp -s il64.data il64.jobs2.data || fail "--itrace=i1000il64 --jobs 2 differs from --jobs 1"
fi

"$PERFTK" cs-etm-decode -q -i run/perf.data --format=autofdo --jobs 2 -o jobs2.afdo
cmp -s got.afdo jobs2.afdo || fail "--jobs 2 differs from --jobs 1"

# The same run, logged by translation blocks.
trace blocks 18 --blocks
cmp -s run.out blocks.out || fail "lua printed: $(cat blocks.out)"
cmp -s run.truth blocks.truth || fail "--blocks: another truth than the instructions'"
cmp -s run/perf.data blocks/perf.data || fail "--blocks: another perf.data than the instructions'"
echo "ok: translation blocks give the same truth and perf.data"

# Controls: the comparison above can fail.
trace other 17 --blocks
printf '1597\t30428895\tTHE,QUICK,BROWN,FOX,JUMPS,OVER,THE,LAZY,DOG\tfalse\tboom\t1.414\n' >want.out
cmp -s want.out other.out || fail "lua printed: $(cat other.out)"
! cmp -s other.truth got.afdo || fail "control: the truth of another run equals the decode"
if [ -e il64.got ]; then
  ! cmp -s other.samples il64.got || fail "control: another run's samples equal the decode's"
fi
check_shifted_control run.truth got.afdo
echo "ok: controls differ"
