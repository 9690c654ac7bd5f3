# The zstd 1.5.6 command line tool (third_party/zstd) cross-built for
# aarch64 and run under qemu-aarch64, for cs_etm_qemu_zstd.sh and bench/.
# Sourced after common.bash (or with PERFTK_SOURCE_DIR set), never run.
# shellcheck source=qemu_etm.bash
source "$(dirname "${BASH_SOURCE[0]}")/qemu_etm.bash"
ZSTD=${PERFTK_SOURCE_DIR:?set by ctest}/third_party/zstd

# What the zstd CLI links without its benchmark, dictionary builder and
# tracing (the CLI's ZSTD_NO* switches), legacy formats, threads, zlib,
# lzma and lz4 (third_party/zstd/README.md).
ZSTD_SOURCES=(lib/common/{debug,entropy_common,error_private,fse_decompress,pool,threading,xxhash,zstd_common}.c
  lib/compress/{fse_compress,hist,huf_compress,zstd_compress,zstd_compress_literals}.c
  lib/compress/{zstd_compress_sequences,zstd_compress_superblock,zstd_double_fast,zstd_fast}.c
  lib/compress/{zstd_lazy,zstd_ldm,zstd_opt}.c
  lib/decompress/{huf_decompress,zstd_ddict,zstd_decompress,zstd_decompress_block}.c
  programs/{zstdcli,fileio,fileio_asyncio,util,timefn}.c)

# `build_zstd OUT COMPILER...`: zstd, its objects compiled two at a time
# into OUT.o/ (-O2 -g and the CLI's switches; COMPILER's -fuse-ld= and
# -static only at the link), linked with relocations kept (BOLT's
# relocation mode): non-PIE and dynamically linked, or static if COMPILER
# has -static.
build_zstd() {
  local out=$1 arg compile=() objects pie=-no-pie
  shift
  for arg in "$@"; do
    case $arg in
      -static) pie= ;;
      -fuse-ld=*) ;;
      *) compile+=("$arg") ;;
    esac
  done
  mkdir -p "$out.o"/{lib/common,lib/compress,lib/decompress,programs}
  printf '%s\n' "${ZSTD_SOURCES[@]}" | xargs -P 2 -I '{}' "${compile[@]}" -c -O2 -g \
    -DZSTD_NOBENCH -DZSTD_NODICT -DZSTD_NOTRACE -DZSTD_LEGACY_SUPPORT=0 -o "$out.o/{}.o" "$ZSTD/{}" ||
    return 1
  objects=("${ZSTD_SOURCES[@]/#/$out.o/}")
  objects=("${objects[@]/%/.o}")
  "$@" ${pie:+"$pie"} -Wl,--emit-relocs -o "$out" "${objects[@]}"
}

# `zstd_input FILE KB`: the first KB kilobytes of zstd's own compressor.
zstd_input() {
  head -c $(($2 * 1024)) "$ZSTD/lib/compress/zstd_compress.c" >"$1"
  [ "$(wc -c <"$1")" -eq $(($2 * 1024)) ]
}

# `zstd_check PROGRAM INPUT FRAME BACK`: zstd's own check of a round trip,
# untraced: ./PROGRAM -t accepts FRAME (its XXH64 checksum), BACK (FRAME
# decompressed) is INPUT, and the host's zstd, when here, reads FRAME as
# INPUT. Returns 1 with a message on stderr.
zstd_check() {
  local program=$1 input=$2 frame=$3 back=$4
  qemu-aarch64 -L "$QEMU_PREFIX" "./$program" -q -t "$frame" </dev/null ||
    { echo "$program -t rejects $frame" >&2; return 1; }
  cmp -s "$input" "$back" || { echo "$back ($program -d of $frame) is not $input" >&2; return 1; }
  if command -v zstd >/dev/null && ! zstd -q -d -c "$frame" | cmp -s "$input" -; then
    echo "the host's zstd reads $frame otherwise" >&2
    return 1
  fi
}
