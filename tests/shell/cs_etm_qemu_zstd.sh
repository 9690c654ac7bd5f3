#!/usr/bin/env bash
# cs-etm-decode on a third real program: the zstd 1.5.6 command line tool
# (third_party/zstd) compressing 64 KB of C source at level 9 (lazy2
# match finder with its row hash, Huffman and FSE entropy coding, XXH64
# checksum, the CLI's file handling), cross-built for aarch64 twice:
# by gcc, non-PIE and dynamically linked (PLT, libc, ld.so), and by clang
# and lld, static (no DSO: libc's code is in the program, its IFUNCs
# resolved by the program itself). Each build is traced under qemu-aarch64
# by translation blocks (--blocks) into a CoreSight perf.data and the exact
# ground truth of that run (perftk_qemu_etm, as for Lua and zlib). Checked,
# for each build:
#   - zstd's own check: zstd -t accepts the frame (its XXH64 checksum) and
#     zstd -d gives the input back (and the host's zstd, when here, agrees);
#   - --format=autofdo equals the ground truth byte for byte (every range
#     and taken branch with its count), and its ranges hold every
#     instruction qemu executed, once;
#   - --format=bolt --dso zstd (and libc.so.6) equal the truth's BOLT texts;
#   - --itrace=i1000il64 (read back by perf script, when perf is here):
#     every sample's ip and branch stack are the truth's;
#   - --jobs 2 writes the same text as --jobs 1;
#   - controls: the truth of a run with another output file name, and the
#     truth with one of zstd's ranges moved by an instruction, differ from
#     what perftk decoded.
# The dynamic build's decompression (zstd -t) is traced too and its
# --format=autofdo and BOLT text checked against its truth.
source "$(dirname "$0")/lib/common.bash"
source "$LIB_DIR/qemu_zstd.bash"
require_qemu_etm
command -v clang >/dev/null || skip "no clang"
command -v ld.lld >/dev/null || skip "no ld.lld (Debian: lld)"

start=$(seconds)
cached_build "$ZSTD" zstd build_zstd zstd aarch64-linux-gnu-gcc || fail "gcc cannot build zstd"
echo "built zstd (gcc, dynamic) in $(elapsed "$start") s"
start=$(seconds)
cached_build "$ZSTD" zstd-static build_zstd zstd-static clang --target=aarch64-linux-gnu -fuse-ld=lld -static ||
  fail "clang and lld cannot build zstd-static"
echo "built zstd-static (clang and lld, static) in $(elapsed "$start") s"
! aarch64-linux-gnu-readelf -lW zstd-static | has INTERP || fail "zstd-static has an interpreter"

# The input: the first 64 KB of zstd's own compressor (16 KB for an ASan
# build of perftk, which decodes 5-10 times slower: the same code paths,
# fewer rounds of them; CI runs both builds).
kb=64
if asan_build; then kb=16; fi
zstd_input input "$kb" || fail "no $kb KB of input"

# `trace NAME PROGRAM FRAME`: PROGRAM compresses input into FRAME at level
# 9, traced; then, untraced, zstd -t checks FRAME and zstd -d gives input
# back.
trace() {
  local name=$1 program=$2 frame=$3
  qemu_etm_trace "$name" blocks "$program" -q -9 input -o "$frame" </dev/null
  [ ! -s "$name.out" ] || fail "zstd -q ($name) printed: $(cat "$name.out")"
  [ "$(wc -c <"$frame")" -lt 20000 ] || fail "$program compressed input into $(wc -c <"$frame") bytes"
  qemu-aarch64 -L "$QEMU_PREFIX" "./$program" -q -d "$frame" -o "$name.back" </dev/null ||
    fail "$program -d cannot decompress $frame"
  zstd_check "$program" input "$frame" "$name.back" || fail "zstd's check ($name)"
}

# `check_jobs NAME`: --jobs 2 writes got.afdo (the --jobs 1 decode).
check_jobs() {
  "$PERFTK" cs-etm-decode -q -i "$1/perf.data" --format=autofdo --jobs 2 -o jobs2.afdo
  cmp -s got.afdo jobs2.afdo || fail "--jobs 2 differs from --jobs 1 ($1)"
  echo "ok: --jobs 2 equals --jobs 1 ($1)"
}

# `check_controls NAME OTHER`: the truth (and samples) of OTHER, a run with
# another output file name, and NAME's truth shifted differ from the decode.
check_controls() {
  ! cmp -s "$2.truth" got.afdo || fail "control: the truth of $2 equals the decode of $1"
  if [ -e il64.got ]; then
    ! cmp -s "$2.samples" il64.got || fail "control: the samples of $2 equal the decode of $1"
  fi
  check_shifted_control "$1.truth" got.afdo
  echo "ok: controls differ ($1)"
}

# Dynamically linked: zstd, its PLT, libc and ld.so.
trace run zstd run.zst
check_autofdo run "$PWD/zstd"
check_ranges_hold_executed run.stats got.afdo
check_bolt run zstd libc.so.6
rm -f il64.got
check_il64 run || true
check_jobs run
trace other zstd a-much-longer-file-name-for-the-control-run.zst
check_controls run other

# Its decompression: zstd -t of run.zst (Huffman and FSE decoding).
# Fewer than check_autofdo's 1000 ranges of zstd: compared here.
qemu_etm_trace test blocks zstd -q -t run.zst </dev/null
"$PERFTK" cs-etm-decode -q -i test/perf.data --format=autofdo -o got.afdo
cmp -s test.truth got.afdo || fail "--format=autofdo of zstd -t differs: $(diff test.truth got.afdo | head -2)"
echo "ok: --format=autofdo of zstd -t equals the truth ($(head -1 test.truth) ranges of zstd)"
check_ranges_hold_executed test.stats got.afdo
check_bolt test zstd libc.so.6

# Static, by clang and lld: one binary, no DSO.
trace static zstd-static static.zst
cmp -s run.zst static.zst || fail "the static build writes another frame than the dynamic one"
check_autofdo static "$PWD/zstd-static" static
check_ranges_hold_executed static.stats got.afdo
check_bolt static zstd-static
rm -f il64.got
check_il64 static || true
check_jobs static
trace static-other zstd-static a-much-longer-file-name-for-the-control-run-static.zst
check_controls static static-other
