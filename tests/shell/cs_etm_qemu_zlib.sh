#!/usr/bin/env bash
# cs-etm-decode on a second real program: zlib 1.3.1's own self-check,
# test/example.c (third_party/zlib: compress/uncompress, gzip file I/O with
# gzseek and gzgets, deflate and inflate in small and large buffers, full
# flush and inflateSync, a preset dictionary), cross-built for aarch64
# (non-PIE, dynamically linked: libc's memcpy, memset, strlen and the file
# calls run through the PLT) and run under qemu-aarch64 by translation
# blocks (--blocks); perftk_qemu_etm turns the log into a CoreSight
# perf.data and the exact ground truth of that run (as
# cs_etm_qemu_lua.sh does for Lua). Checked:
#   - example prints what zlib's self-check prints when every test passes;
#   - --format=autofdo equals the ground truth byte for byte (every range
#     and taken branch with its count, of example, libc and ld.so), and its
#     ranges hold every instruction qemu executed, once;
#   - --format=bolt --dso example, libc.so.6 equal the truth's BOLT texts;
#   - --itrace=i1000il64 (read back by perf script, when perf is here):
#     every sample's ip and branch stack are the truth's;
#   - --jobs 2 writes the same text as --jobs 1;
#   - the same run logged one instruction at a time (qemu -singlestep)
#     gives the same perf.data and truth, byte for byte;
#   - controls: the truth of a run with another file name, and the truth
#     with one of example's ranges moved by an instruction, differ from
#     what perftk decoded.
source "$(dirname "$0")/lib/common.bash"
source "$LIB_DIR/qemu_zlib.bash"
require_qemu_etm

start=$(seconds)
cached_build "$ZLIB" example build_zlib_example example aarch64-linux-gnu-gcc || fail "cannot build zlib's example"
echo "built example in $(elapsed "$start") s"
zlib_example_want want.out

# trace NAME steps|blocks GZFILE: example writes and reads back GZFILE.
trace() {
  qemu_etm_trace "$1" "$2" example "$3"
  cmp -s want.out "$1.out" || fail "example ($1) printed: $(cat "$1.out")"
}

trace run blocks foo.gz

check_autofdo run "$PWD/example"
check_ranges_hold_executed run.stats got.afdo
check_bolt run example libc.so.6

check_il64 run || true

"$PERFTK" cs-etm-decode -q -i run/perf.data --format=autofdo --jobs 2 -o jobs2.afdo
cmp -s got.afdo jobs2.afdo || fail "--jobs 2 differs from --jobs 1"
echo "ok: --jobs 2 equals --jobs 1"

# The same run, one instruction at a time.
trace steps steps foo.gz
cmp -s run.truth steps.truth || fail "-singlestep: another truth than the blocks'"
cmp -s run/perf.data steps/perf.data || fail "-singlestep: another perf.data than the blocks'"
echo "ok: single steps give the same truth and perf.data"

# Controls: the comparison above can fail.
trace other blocks a-much-longer-file-name-for-the-control-run.gz
! cmp -s other.truth got.afdo || fail "control: the truth of another run equals the decode"
if [ -e il64.got ]; then
  ! cmp -s other.samples il64.got || fail "control: another run's samples equal the decode's"
fi
check_shifted_control run.truth got.afdo
echo "ok: controls differ"
