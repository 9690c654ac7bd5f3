# zlib 1.3.1's self-check (third_party/zlib, test/example.c) cross-built for
# aarch64 and run under qemu-aarch64, for cs_etm_qemu_zlib.sh and bench/.
# Sourced after common.bash (or with PERFTK_SOURCE_DIR set), never run.
# shellcheck source=qemu_etm.bash
source "$(dirname "${BASH_SOURCE[0]}")/qemu_etm.bash"
ZLIB=${PERFTK_SOURCE_DIR:?set by ctest}/third_party/zlib

# `build_zlib_example OUT COMPILER...`: example with zlib's library sources
# linked in (not the system's libz), as zlib's Makefile builds it
# (Z_HAVE_UNISTD_H: what ./configure sets); non-PIE with relocations kept
# (BOLT's relocation mode), dynamically linked.
build_zlib_example() {
  local out=$1
  shift
  "$@" -O2 -g -no-pie -Wl,--emit-relocs -DZ_HAVE_UNISTD_H -I"$ZLIB" -o "$out" \
    "$ZLIB"/{adler32,compress,crc32,deflate,gzclose,gzlib,gzread,gzwrite,inffast,inflate,inftrees,trees,uncompr,zutil}.c \
    "$ZLIB/test/example.c"
}

# `zlib_example_want FILE`: what example prints when every test passes.
zlib_example_want() {
  printf '%s\n' 'zlib version 1.3.1 = 0x1310, compile flags = 0xa9' \
    'uncompress(): hello, hello!' 'gzread(): hello, hello!' 'gzgets() after gzseek:  hello!' \
    'inflate(): hello, hello!' 'large_inflate(): OK' 'after inflateSync(): hello, hello!' \
    'inflate with dictionary: hello, hello!' >"$1"
}
