#!/bin/bash
# uprobe-offset --list against readelf and perf probe -F: on a generated
# 3,000-function program and on libc.so.6 (with its debug file when
# installed) every line is "0x%08x  SYMBOL", every function readelf shows is
# listed at its file offset (value translated through the executable LOAD
# segment), every listed function is one readelf shows at that offset, the
# listing is sorted and has one line per name and address, and perf probe
# -F knows every function we list in the generated program.
source "$(dirname "$0")/lib/common.bash"
# shellcheck source=lib/checks.bash
source "$LIB_DIR/checks.bash"
command -v readelf > /dev/null || skip "needs readelf"
command -v gcc > /dev/null || skip "needs gcc"
mkdir "$WORK/buildid"

# "NAME OFFSET" (decimal) for every defined FUNC/IFUNC symbol that readelf
# prints for FILE (args: readelf table options), offsets through BINARY's
# executable LOAD segments; versions stripped.
readelf_functions() {
  local binary=$1 file=$2
  shift 2
  readelf -lW "$binary" | awk '$1 == "LOAD" && / E +0x[0-9a-f]+$/ {print $2, $3, $5}' > "$WORK/loads"
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
' "$WORK/loads" | sort -u
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
  our_functions "$listing" > "$WORK/ours"
  local missing extra
  missing=$(comm -23 "$truth" "$WORK/ours" | wc -l)
  extra=$(comm -13 "$truth" "$WORK/ours" | wc -l)
  check "$label: all $(wc -l < "$truth") readelf functions listed at their offsets (missing $missing: $(comm -23 "$truth" "$WORK/ours" | head -3 | tr '\n' ' '))" \
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
} > "$WORK/big.c"
gcc -O0 -o "$WORK/big" "$WORK/big.c" || fail "gcc"
rc=0
"$PERFTK" uprobe-offset --list "$WORK/big" > "$WORK/big.list" || rc=$?
check "generated: --list exits 0" test "$rc" = 0
readelf_functions "$WORK/big" "$WORK/big" --syms > "$WORK/big.truth"
check "generated: readelf sees 3,000+ functions" test "$(wc -l < "$WORK/big.truth")" -gt 3000
check_listing generated "$WORK/big" "$WORK/big.list" "$WORK/big.truth"
# perf probe -F on a program without aliases lists each function once.
if command -v perf > /dev/null; then
  # A failing perf probe leaves the list empty, which the check reports.
  perf --buildid-dir "$WORK/buildid" probe -x "$WORK/big" -F --filter='*' 2> /dev/null |
    sort -u > "$WORK/perf" || true
  our_functions "$WORK/big.list" | awk '{print $1}' | sort -u > "$WORK/names"
  check "generated: perf probe -F knows every listed function ($(comm -13 "$WORK/perf" "$WORK/names" | head -3 | tr '\n' ' '))" \
    test -s "$WORK/perf" -a "$(comm -13 "$WORK/perf" "$WORK/names" | wc -l)" = 0
fi

LIBC=/usr/lib/x86_64-linux-gnu/libc.so.6
if [[ -e $LIBC ]]; then
  rc=0
  "$PERFTK" uprobe-offset --list "$LIBC" > "$WORK/libc.list" || rc=$?
  check "libc: --list exits 0" test "$rc" = 0
  readelf_functions "$LIBC" "$LIBC" --dyn-syms > "$WORK/libc.truth"
  id=$(readelf -n "$LIBC" | awk '/Build ID/ {print $3}')
  debug=/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
  if [[ -e $debug ]]; then
    readelf_functions "$LIBC" "$debug" --syms >> "$WORK/libc.truth"
    sort -u -o "$WORK/libc.truth" "$WORK/libc.truth"
  fi
  check_listing libc "$LIBC" "$WORK/libc.list" "$WORK/libc.truth"
  check "libc: of one name and address the default version is listed (pthread_join@@)" \
    grep -qE '  pthread_join@@GLIBC_' "$WORK/libc.list"
fi

checks_summary
