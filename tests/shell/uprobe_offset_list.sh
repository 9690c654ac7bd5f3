#!/bin/bash
# uprobe-offset --list against readelf and perf probe -F: on a generated
# 3,000-function program and on libc.so.6 (with its debug file when
# installed) every line is "0x%08x  SYMBOL", every function readelf shows is
# listed at its file offset (value translated through the executable LOAD
# segment), every listed function is one readelf shows at that offset, the
# listing is sorted and has one line per name and address, and perf probe
# -F knows every function we list in the generated program.
set -uo pipefail

PERFTK=${PERFTK:?set PERFTK to the perftk binary}
command -v readelf > /dev/null || { echo "SKIP: needs readelf"; exit 77; }
command -v gcc > /dev/null || { echo "SKIP: needs gcc"; exit 77; }

work=$(mktemp -d /tmp/perftk-uprobe-list.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir "$work/buildid"

source "$(dirname "$0")/lib/checks.bash"

# "NAME OFFSET" (decimal) for every defined FUNC/IFUNC symbol that readelf
# prints for FILE (args: readelf table options), offsets through BINARY's
# executable LOAD segments; versions stripped.
readelf_functions() {
  local binary=$1 file=$2
  shift 2
  readelf -lW "$binary" | awk '$1 == "LOAD" && / E +0x[0-9a-f]+$/ {print $2, $3, $5}' > "$work/loads"
  readelf -W "$@" "$file" 2> /dev/null | python3 -c '
import sys
loads = [tuple(int(x, 16) for x in line.split()) for line in open(sys.argv[1])]
for line in sys.stdin:
    f = line.split()
    if len(f) < 8 or f[3] not in ("FUNC", "IFUNC") or f[6] in ("UND", "ABS"):
        continue
    value = int(f[1], 16)
    for offset, vaddr, size in loads:
        if vaddr <= value < vaddr + size:
            print(f[7].split("@")[0], value - vaddr + offset)
            break
' "$work/loads" | sort -u
}
# "NAME OFFSET" (decimal) of our listing without PLT stubs, versions stripped.
our_functions() {
  python3 -c '
import sys
for line in open(sys.argv[1]):
    offset, symbol = line.split()
    if not symbol.endswith("@plt"):
        print(symbol.split("@")[0], int(offset, 16))
' "$1" | sort -u
}
# Exit 0 when the listing is sorted by name (version stripped), then offset,
# with one line per name and offset.
sorted_and_unique() {
  python3 -c '
import sys
keys = []
for line in open(sys.argv[1]):
    offset, symbol = line.split()
    if not symbol.endswith("@plt"):
        keys.append((symbol.split("@")[0].encode(), int(offset, 16)))
sys.exit(0 if keys == sorted(set(keys)) else 1)
' "$1"
}

check_listing() {  # check_listing LABEL BINARY LISTING TRUTH
  local label=$1 binary=$2 listing=$3 truth=$4
  check "$label: every line is 0x%08x  SYMBOL" \
    test "$(grep -cvE '^0x[0-9a-f]{8,}  [^ ]+$' "$listing")" = 0
  our_functions "$listing" > "$work/ours"
  local missing extra
  missing=$(comm -23 "$truth" "$work/ours" | wc -l)
  extra=$(comm -13 "$truth" "$work/ours" | wc -l)
  check "$label: all $(wc -l < "$truth") readelf functions listed at their offsets (missing $missing: $(comm -23 "$truth" "$work/ours" | head -3 | tr '\n' ' '))" \
    test "$missing" = 0
  check "$label: every listed function is a readelf function at that offset (extra $extra)" \
    test "$extra" = 0
  check "$label: sorted by name, then offset; one line per name and offset" \
    sorted_and_unique "$listing"
}

{
  for ((i = 0; i < 3000; i++)); do echo "int fn_$i(int x) { return x + $i; }"; done
  echo "static int local_fn(int x) { return x * 3; }"
  echo "int main(void) { return fn_0(0) + local_fn(1); }"
} > "$work/big.c"
gcc -O0 -o "$work/big" "$work/big.c" || { echo "FAIL: gcc"; exit 1; }
"$PERFTK" uprobe-offset --list "$work/big" > "$work/big.list"
check "generated: --list exits 0" test $? = 0
readelf_functions "$work/big" "$work/big" --syms > "$work/big.truth"
check "generated: readelf sees 3,000+ functions" test "$(wc -l < "$work/big.truth")" -gt 3000
check_listing generated "$work/big" "$work/big.list" "$work/big.truth"
# perf probe -F on a program without aliases lists each function once.
if command -v perf > /dev/null; then
  perf --buildid-dir "$work/buildid" probe -x "$work/big" -F --filter='*' 2> /dev/null |
    sort -u > "$work/perf"
  our_functions "$work/big.list" | awk '{print $1}' | sort -u > "$work/names"
  check "generated: perf probe -F knows every listed function ($(comm -13 "$work/perf" "$work/names" | head -3 | tr '\n' ' '))" \
    test -s "$work/perf" -a "$(comm -13 "$work/perf" "$work/names" | wc -l)" = 0
fi

LIBC=/usr/lib/x86_64-linux-gnu/libc.so.6
if [[ -e $LIBC ]]; then
  "$PERFTK" uprobe-offset --list "$LIBC" > "$work/libc.list"
  check "libc: --list exits 0" test $? = 0
  readelf_functions "$LIBC" "$LIBC" --dyn-syms > "$work/libc.truth"
  id=$(readelf -n "$LIBC" | awk '/Build ID/ {print $3}')
  debug=/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
  if [[ -e $debug ]]; then
    readelf_functions "$LIBC" "$debug" --syms >> "$work/libc.truth"
    sort -u -o "$work/libc.truth" "$work/libc.truth"
  fi
  check_listing libc "$LIBC" "$work/libc.list" "$work/libc.truth"
  check "libc: of one name and address the default version is listed (pthread_join@@)" \
    grep -qE '  pthread_join@@GLIBC_' "$work/libc.list"
fi

checks_summary
