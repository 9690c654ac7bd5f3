#!/usr/bin/env bash
# cs-etm-decode on the vendored Lua interpreter built by clang and lld
# (clang --target=aarch64-linux-gnu -fuse-ld=lld), whose layout differs
# from GNU ld's: a read-only first PT_LOAD, and code at a virtual address
# 0x210000 past its file offset. Traced under qemu-aarch64 by translation
# blocks (perftk_qemu_etm --blocks), checked as cs_etm_qemu_lua.sh checks
# the gcc build: Lua's output, --format=autofdo equal to the ground truth
# byte for byte, --format=bolt --dso lua equal to the truth's BOLT text
# (virtual addresses), the i1000il64 samples equal to the truth's. The AutoFDO
# addresses are the ELF's virtual addresses minus the first PT_LOAD's
# (_start, read by readelf, is where the truth's first range of lua
# starts), not file offsets; BOLT's are the virtual addresses (its first
# range starts at _start). A truth with lua's addresses moved by a page
# differs from the decode (control).
source "$(dirname "$0")/lib/common.bash"
source "$LIB_DIR/qemu_lua.bash"
PREFIX=/usr/aarch64-linux-gnu
command -v qemu-aarch64 >/dev/null || skip "no qemu-aarch64 (Debian: qemu-user)"
command -v clang >/dev/null || skip "no clang"
command -v ld.lld >/dev/null || skip "no ld.lld (Debian: lld)"
command -v aarch64-linux-gnu-readelf >/dev/null ||
  skip "no aarch64-linux-gnu-readelf (Debian: binutils-aarch64-linux-gnu)"
[ -e "$PREFIX/lib/libc.so.6" ] || skip "no $PREFIX/lib/libc.so.6 (Debian: libc6-dev-arm64-cross)"
QEMU_ETM=${QEMU_ETM:-$(dirname "$(dirname "$PERFTK")")/tests/perftk_qemu_etm}
[ -x "$QEMU_ETM" ] || skip "no perftk_qemu_etm at $QEMU_ETM"
SCRIPT=$PERFTK_SOURCE_DIR/tests/shell/lib/qemu_workload.lua

cached_build "$PERFTK_SOURCE_DIR/third_party/lua" lua build_lua lua clang --target=aarch64-linux-gnu -fuse-ld=lld || fail "cannot build Lua with clang and lld"
first_load=$(aarch64-linux-gnu-readelf -lW lua | awk '$1 == "LOAD" && !found { print $3; found = 1 }')
code_delta=$(aarch64-linux-gnu-readelf -lW lua | awk '$1 == "LOAD" && $7 ~ /E/ && !found { print $3 " " $2; found = 1 }')
read -r code_vaddr code_offset <<<"$code_delta"
[ $((code_vaddr - code_offset)) -ne $((first_load)) ] ||
  fail "clang and lld laid the code out at vaddr = offset + first load: nothing to check"

mkdir bolt
env -i "$(command -v qemu-aarch64)" -L "$PREFIX" -d in_asm,exec,nochain -strace -D /dev/stderr \
  ./lua "$SCRIPT" 18 2>&1 >lua.out |
  "$QEMU_ETM" --blocks --program ./lua --prefix "$PREFIX" --out perf.data --truth-autofdo truth.afdo \
    --truth-bolt-dir bolt \
    --expect-itrace i1000il64 --expect-out truth.samples >stats.txt ||
  fail "qemu-aarch64 | perftk_qemu_etm failed"
printf '2584\t30428895\tTHE,QUICK,BROWN,FOX,JUMPS,OVER,THE,LAZY,DOG\tfalse\tboom\t1.414\n' >want.out
cmp -s want.out lua.out || fail "lua printed: $(cat lua.out)"
echo "traced: $(cat stats.txt)"

start=$(aarch64-linux-gnu-readelf -sW lua | awk '$8 == "_start" && !found { print $2; found = 1 }')
want_first=$(printf '%x' $((0x$start - first_load)))
[ "$(sed -n 2p truth.afdo | cut -d- -f1)" = "$want_first" ] ||
  fail "lua's first range starts at $(sed -n 2p truth.afdo), not at _start ($want_first)"

"$PERFTK" cs-etm-decode -q -i perf.data --format=autofdo -o got.afdo
if ! cmp -s truth.afdo got.afdo; then
  diff truth.afdo got.afdo | head -20 >&2
  fail "--format=autofdo differs from the ground truth"
fi
echo "ok: --format=autofdo equals the truth ($(head -1 truth.afdo) ranges of lua)"
"$PERFTK" cs-etm-decode -q -i perf.data --format=bolt --dso lua -o lua.bolt
cmp -s bolt/lua.bolt lua.bolt || fail "--format=bolt --dso lua differs from the truth"
# BOLT's addresses are virtual: the first range starts at _start itself.
[ "$(head -1 lua.bolt | sed -E 's/^F [0-9a-f]+:([0-9a-f]+) .*/\1/')" = "$(printf '%x' $((0x$start)))" ] ||
  fail "the BOLT text's first range is not at _start ($start): $(head -1 lua.bolt)"
echo "ok: --format=bolt equals the truth"
if command -v perf >/dev/null; then
  "$PERFTK" cs-etm-decode -q -i perf.data --itrace=i1000il64 -o il64.data
  brstack_listing il64.data >il64.got
  [ "$(wc -l <il64.got)" -gt 1000 ] || fail "only $(wc -l <il64.got) il64 samples"
  cmp -s truth.samples il64.got || fail "il64 samples differ from the truth"
  echo "ok: $(wc -l <il64.got) il64 samples equal the truth's"
fi

# Control: lua's ranges one page later.
n=$(head -1 truth.afdo)
{
  head -1 truth.afdo
  sed -n "2,$((n + 1))p" truth.afdo | while IFS='-:' read -r a b count; do
    printf '%x-%x:%s\n' $((0x$a + 0x1000)) $((0x$b + 0x1000)) "$count"
  done
  tail -n +$((n + 2)) truth.afdo
} >moved.afdo
[ "$(wc -l <moved.afdo)" -eq "$(wc -l <truth.afdo)" ] || fail "control: the moved truth is malformed"
! cmp -s moved.afdo got.afdo || fail "control: a moved truth equals the decode"
echo "ok: control differs"
