#!/bin/bash
# uprobe-offset command line: system binaries against readelf/objdump ground
# truth (libc.so.6 malloc/free, IFUNC strlen/memcpy refused, /usr/bin/ls
# malloc through .plt.got), output formats, exit codes and bad input.
source "$(dirname "$0")/lib/common.bash"
# shellcheck source=lib/checks.bash
source "$LIB_DIR/checks.bash"
# shellcheck source=lib/uprobe.bash
source "$LIB_DIR/uprobe.bash"
LIBC=/usr/lib/x86_64-linux-gnu/libc.so.6
[[ -e $LIBC && -e /usr/bin/ls ]] || skip "needs Debian x86_64 libc.so.6 and ls"
build_fixtures

# File offset of a .dynsym symbol by readelf: value translated through the
# executable LOAD segment readelf prints.
readelf_offset() {
  local file=$1 name=$2 value type offset vaddr filesz flags
  value=$((16#$(readelf --dyn-syms -W "$file" | awk -v n="$name" '$8 == n && !seen++ {print $2}')))
  while read -r type offset vaddr _ filesz _ flags; do
    [[ $type == LOAD && $flags == *E* ]] || continue
    if ((value >= vaddr && value < vaddr + filesz)); then
      printf '0x%x\n' $((value - vaddr + offset))
      return
    fi
  done < <(readelf -lW "$file" | grep '^  LOAD')
}
objdump_label() {  # objdump_label FILE LABEL -> file offset
  objdump -dF "$1" | sed -n "s/^[0-9a-f]* <$2> (File Offset: \(0x[0-9a-f]*\)):\$/\1/p" | sed -n 1p
}

for name in malloc free; do
  want=$(readelf_offset "$LIBC" "$name@@GLIBC_2.2.5")
  run "$LIBC" "$name"
  check "libc $name = readelf $want (got $out)" test "$rc" = 0 -a "$out" = "$want"
done

run "$LIBC" strlen
check "libc strlen (IFUNC) refused with exit 1" test "$rc" = 1 -a -z "$out"
check "strlen error explains IFUNC and the way out" grep -q 'IFUNC.*--ifunc-selector' <<< "$err"
run "$LIBC" memcpy
check "libc memcpy is the default-version IFUNC, not the compat memcpy@GLIBC_2.2.5" \
  grep -q "IFUNC" <<< "$err"
want=$(readelf_offset "$LIBC" "memcpy@GLIBC_2.2.5")
run "$LIBC" memcpy@GLIBC_2.2.5
check "libc memcpy@GLIBC_2.2.5 = readelf $want (got $out)" test "$rc" = 0 -a "$out" = "$want"

want=$(objdump_label /usr/bin/ls 'malloc@plt')
run /usr/bin/ls malloc
check "ls malloc = objdump malloc@plt $want (got $out)" test "$rc" = 0 -a "$out" = "$want"
check "ls malloc says the stub sees only calls from ls" grep -q 'only calls made from this file' <<< "$err"
run --in-library /usr/bin/ls malloc
want=$(readelf_offset "$LIBC" "malloc@@GLIBC_2.2.5")
check "ls --in-library malloc = libc malloc $want (got $out)" test "$out" = "$want"
run --in-library --format=uprobe-events /usr/bin/ls malloc
check "--in-library uprobe event names libc ($out)" \
  grep -Eq "^p:perftk/malloc (/usr)?/lib/x86_64-linux-gnu/libc.so.6:$want\$" <<< "$out"

run --format=uprobe-events --return --group grp "$WORK/t_pie" global_fn 'vfn@@x+1'
check "one unknown name fails the whole call, nothing printed" test "$rc" = 1 -a -z "$out"
want=$(objdump_label "$WORK/t_pie" global_fn)
run --format=uprobe-events --return --group grp "$WORK/t_pie" global_fn main
check "uprobe-events --return line ($out)" \
  grep -q "^r:grp/global_fn__return $WORK/t_pie:$want\$" <<< "$out"
run --json "$WORK/t_pie" global_fn malloc
check "--json is valid JSON with the objdump offset" \
  python3 -c "import json,sys; d=json.load(sys.stdin); assert d[0]['offset']=='$want', d; \
assert d[1]['symbol']=='malloc@plt' and 'note' in d[1], d" <<< "$out"
run "$WORK/t_pie" global_fn main
check "several names print NAME OFFSET lines" test "$(wc -l <<< "$out")" = 2 -a \
  "$(head -1 <<< "$out")" = "global_fn $want"
run --list "$WORK/t_pie"
check "--list includes global_fn at its offset" grep -q "^0x0*${want#0x}  global_fn\$" <<< "$out"
check "--list includes malloc@plt" grep -q "  malloc@plt\$" <<< "$out"
run "$WORK/t_pie" global_fn+0x2
check "global_fn+0x2 = objdump + 2" test "$out" = "$(printf '0x%x' $((want + 2)))"

run "$WORK/t_pie" globl_fn
check "unknown name: exit 1 and a suggestion" test "$rc" = 1
check "suggestion names global_fn" grep -q 'Did you mean: global_fn' <<< "$err"
run /etc/hostname main
check "not ELF: exit 1 with reason ($err)" grep -q 'not an ELF file' <<< "$err"
run "$WORK" main
check "directory: exit 1 with reason ($err)" grep -q 'is a directory' <<< "$err"
run "$WORK/nope" main
check "missing file: exit 1 with reason ($err)" grep -q 'No such file' <<< "$err"
head -c 3000 "$WORK/t_pie" > "$WORK/cut"
run "$WORK/cut" main
check "truncated: exit 1 with reason ($err)" test "$rc" = 1 -a -n "$(grep truncated <<< "$err")"
run "$WORK/t_pie"
check "no names and no --list: exit 2 (usage)" test "$rc" = 2
run --no-such-flag "$WORK/t_pie" main
check "unknown flag: exit 2" test "$rc" = 2
# Other versions of a name at other addresses are named (issue 32): plain
# realpath is the default realpath@@GLIBC_2.3, and realpath@GLIBC_2.2.5,
# which older binaries call, sits elsewhere; --all probes both.
if readelf --dyn-syms -W "$LIBC" | has ' realpath@GLIBC_2\.2\.5$'; then
  old=$(readelf_offset "$LIBC" realpath@GLIBC_2.2.5)
  run "$LIBC" realpath
  check "realpath: the default version's offset" test "$out" = "$(readelf_offset "$LIBC" realpath@@GLIBC_2.3)"
  check "realpath: a note names realpath@GLIBC_2.2.5 and its address ($err)" \
    grep -qE "other versions are elsewhere: realpath@GLIBC_2\.2\.5 at 0x" <<<"$err"
  run "$LIBC" realpath --all
  check "realpath --all: both versions ($out)" test "$(grep -c "^realpath " <<<"$out")" = 2
  check "realpath --all: the old version's offset $old among them" grep -q " $old\$" <<<"$out"
  check "realpath --all: no note" test -z "$err"
  run "$LIBC" malloc
  check "malloc has one version: no note ($err)" test -z "$err"
else
  echo "note: this libc has no realpath@GLIBC_2.2.5: the versions note is not checked"
fi

"$PERFTK" uprobe-offset --help > "$WORK/help" 2>&1 || true
check "--help has examples" grep -q 'Examples:' "$WORK/help"

checks_summary
