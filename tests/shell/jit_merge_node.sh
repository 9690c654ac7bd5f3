#!/usr/bin/env bash
# perftk jit --merge on Node.js recordings: exactly one .so per dump, with one
# .eh_frame holding the unwinding tables of every load that had them (V8's
# --perf-prof-unwinding-info), against perf inject --jit's per-load files:
#
# - frame pointers (-g): perf report --sort sym, every call chain's symbols
#   and the --children call graph equal perf's;
# - DWARF unwinding (--call-graph dwarf): perf report --sort sym equal; call
#   chains equal perf's per-load output with the tables of its files emptied.
#   perf 6.1's libunwind unwinder cannot use the tables of a file that is
#   mapped piecewise (it reads .eh_frame_hdr through the process's memory at
#   one place per file, see src/elf/eh_frame_merge.h), so in merged code it
#   falls back to frame pointers, as it does for per-load files without
#   tables; how many chain lines that changes is printed.
source "$(dirname "$0")/lib/common.bash"
source "$LIB_DIR/jit_node.bash"
require_perf
require_node

# Call chains without each frame's address: "<tab><symbol>" (merged code has
# other file-relative addresses than per-load files).
chain_symbols_of() {
  samples_of "$1" | sed -E 's/^[[:space:]]+[0-9a-f]+ /\t/'
}

# Zeroes the fde_count of every .eh_frame_hdr with a search table in the
# given ELF files (64-bit little-endian), so that they say "no tables".
empty_tables() {
  python3 - "$@" <<'PY'
import struct, sys
for path in sys.argv[1:]:
    b = bytearray(open(path, 'rb').read())
    shoff, = struct.unpack_from('<Q', b, 0x28)
    size, num, strndx = struct.unpack_from('<HHH', b, 0x3a)
    names = struct.unpack_from('<Q', b, shoff + strndx * size + 0x18)[0]
    for i in range(num):
        h = shoff + i * size
        name = struct.unpack_from('<I', b, h)[0]
        if b[names + name:b.index(0, names + name)] != b'.eh_frame_hdr':
            continue
        at, = struct.unpack_from('<Q', b, h + 0x18)
        if b[at + 2] == 0x03:  # fde_count udata4
            b[at + 8:at + 12] = bytes(4)
    open(path, 'wb').write(b)
PY
}

check_mode() {
  local name=$1
  shift
  record_and_inject "$name" "$@"
  mkdir merged
  perftk_jit -i perf.data -o merged.data --jit-dir merged --merge

  local dumps
  dumps=$(ls jit-*.dump | wc -l)
  [ "$(ls merged | wc -l)" -eq "$dumps" ] ||
    fail "$name: --merge wrote $(ls merged | wc -l) files for $dumps dump(s): $(ls merged | head -3)"
  local so
  so=merged/$(basename jit-*.dump .dump | sed 's/^jit-/jitted-/')-merged.so
  [ -f "$so" ] || fail "$name: no $so"

  # Self overhead per symbol (call chains are compared below).
  report_of perf.jit.data --no-children --sort sym -g none >expected.report
  report_of merged.data --no-children --sort sym -g none >merged.report
  grep -q 'JS:\*fib' expected.report || fail "$name: the oracle's report has no JS:*fib"
  same_listing "$name: perf report --sort sym (--merge)" expected.report merged.report

  chain_symbols_of perf.jit.data >expected.symbols
  chain_symbols_of merged.data >merged.symbols
  grep -q $'^\tJS:' expected.symbols || fail "$name: no JS frames in the oracle's call chains"
  if [ "$name" = fp ]; then
    same_listing "$name: perf script call chains (--merge)" expected.symbols merged.symbols
    children_report_of perf.jit.data >expected.children
    children_report_of merged.data >merged.children
    same_listing "$name: perf report --children (--merge)" expected.children merged.children
  else
    check_merged_tables "$so"
    # perf's per-load output, with the tables of its files emptied.
    mkdir fallback
    perftk_jit -i perf.data -o fallback.data --jit-dir fallback
    empty_tables fallback/*.so
    chain_symbols_of fallback.data >fallback.symbols
    same_listing "$name: call chains (--merge) against per-load files without tables" \
      fallback.symbols merged.symbols
    echo "$name: perf 6.1 falls back to frame pointers in merged code:" \
      "$(diff expected.symbols merged.symbols | grep -c '^[<>]' || true) of" \
      "$(wc -l <expected.symbols) chain lines differ from perf's per-load output"
  fi
  echo "ok $name: $(wc -l <expected.symbols) chain lines; --merge wrote $(ls merged | wc -l) file"
  cd "$WORK"
}

# The merged file's .eh_frame has an FDE for every FDE of the per-load
# files, at its function's symbol, and GNU, LLVM and elfutils tools read it.
check_merged_tables() {
  local so=$1 fdes=0 f
  for f in ours/*.so; do
    fdes=$((fdes + $(readelf --debug-dump=frames "$f" | grep -c ' FDE ' || true)))
  done
  [ "$fdes" -gt 0 ] || fail "the per-load files have no FDE (node --perf-prof-unwinding-info)"
  readelf --debug-dump=frames "$so" >merged.frames 2>merged.frames.err
  [ ! -s merged.frames.err ] || fail "readelf warns on $so: $(head -3 merged.frames.err)"
  [ "$(grep -c ' FDE ' merged.frames)" -eq "$fdes" ] ||
    fail "$so has $(grep -c ' FDE ' merged.frames) FDEs, the per-load files $fdes"
  # Every FDE starts at a function symbol of the file.
  nm "$so" | awk '{print $1}' | sed 's/^0*//' | sort -u >symbol.addresses
  sed -nE 's/.* FDE .* pc=0*([0-9a-f]+)\.\..*/\1/p' merged.frames | sort -u >fde.addresses
  [ -z "$(comm -13 symbol.addresses fde.addresses)" ] ||
    fail "FDEs not at a symbol: $(comm -13 symbol.addresses fde.addresses | head -3)"
  if command -v llvm-dwarfdump >/dev/null; then
    llvm-dwarfdump --eh-frame "$so" >llvm.frames 2>&1 || fail "llvm-dwarfdump fails on $so"
    [ "$(grep -c ' FDE ' llvm.frames)" -eq "$fdes" ] || fail "llvm-dwarfdump reads other FDEs"
    ! grep -i 'error' llvm.frames >/dev/null || fail "llvm-dwarfdump: $(grep -i error llvm.frames | head -1)"
  fi
  if command -v eu-readelf >/dev/null; then
    eu-readelf --debug-dump=frames "$so" >eu.frames 2>&1 || fail "eu-readelf fails on $so"
    [ "$(grep -c '\] FDE ' eu.frames)" -eq "$fdes" ] || fail "eu-readelf reads other FDEs"
  fi
}

BENCH_MS=500 check_mode fp -g
# perf unwinds each DWARF sample for ~0.1 s here (thousands of jitted files):
# a low sample rate keeps this check to seconds.
BENCH_MS=800 check_mode dwarf -F 100 --call-graph dwarf,8192 -- --perf-prof-unwinding-info
