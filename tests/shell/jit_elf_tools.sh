#!/usr/bin/env bash
# The ELF files perftk jit writes for a Node.js recording, read with readelf,
# addr2line, llvm-symbolizer and eu-readelf, against the ones perf inject
# --jit writes for the same CODE_LOADs: same symbol, same line rows; and the
# build ids are the same on a second run.
source "$(dirname "$0")/lib/common.bash"
source "$LIB_DIR/jit_node.bash"
require_perf
require_node

record_node perf.data
perf_inject_jit perf.data perf.jit.data
mkdir ours again
perftk_jit -i perf.data -o ours.data --jit-dir ours
perftk_jit -i perf.data -o again.data --jit-dir again

rows() {  # the line table's rows: file, line, address (end-of-sequence rows left out)
  readelf -W --debug-dump=decodedline "$1" | awk 'NF >= 3 && $2 != "-" && $3 ~ /^0x/ {print $1, $2, $3}'
}

# A function with DEBUG_INFO whose file names are intact (Node 20 garbles some).
pick=
for so in ours/jitted-*.so; do
  readelf -S "$so" | has debug_line || continue
  first=$(rows "$so" | sed -n 1p)  # sed reads all: no SIGPIPE under pipefail
  case "$first" in node:path*) pick=$(basename "$so"); break ;; esac
done
[ -n "$pick" ] || fail "no jitted function with line info from node:path"
[ -f "$pick" ] || fail "perf inject wrote no $pick"

readelf -a -W "ours/$pick" >ours.readelf 2>&1
! grep -qi warning ours.readelf || fail "readelf warns: $(grep -i warning ours.readelf | head -2)"
grep -q 'NT_GNU_BUILD_ID' ours.readelf || fail "no build-id note"
sym() { readelf -sW "$1" 2>/dev/null | awk '$4 == "FUNC" {print $2, $3; $1=$2=$3=$4=$5=$6=$7=""; print}'; }
sym "$pick" >perf.sym
sym "ours/$pick" >ours.sym
same_listing "symbol of $pick" perf.sym ours.sym

rows "$pick" >perf.rows
rows "ours/$pick" >ours.rows
same_listing "line rows of $pick" perf.rows ours.rows

addr=$(sed -n 2p ours.rows | awk '{print $3}')
addr2line -f -e "$pick" "$addr" >perf.a2l
addr2line -f -e "ours/$pick" "$addr" >ours.a2l
same_listing "addr2line $addr" perf.a2l ours.a2l
grep -q '^node:path:[0-9]' ours.a2l || fail "addr2line found no line: $(cat ours.a2l)"

# LLVM tools need the compile unit's pc range (perf's files have none).
if command -v llvm-symbolizer >/dev/null; then
  llvm-symbolizer --obj="ours/$pick" "$addr" >ours.llvm
  line=$(sed -n 2p ours.a2l)
  grep -q "^$line:[0-9]" ours.llvm || fail "llvm-symbolizer: $(cat ours.llvm), addr2line: $line"
fi
if command -v eu-readelf >/dev/null; then
  eu-readelf --debug-dump=line "ours/$pick" | has 'node:path' || fail "eu-readelf shows no lines"
else
  echo "note: eu-readelf is not installed; its check is left out"
fi

# Deterministic: a second run writes byte-identical files.
diff -r ours again >/dev/null || fail "two runs wrote different .so files"
echo "ok: $pick, $(wc -l <ours.rows) line rows"
