#!/bin/bash
# uprobe-offset usdt:PROVIDER:NAME command line on the fixtures: output
# forms (hex, --json, --format=uprobe-events, --all), an argument fetch-args
# cannot express named on stderr and in JSON, and the errors: several sites
# without --all, an unknown probe (near names), a file without notes, a
# malformed note (file and offset named, input untouched), usage mistakes.
# shellcheck disable=SC2016 # the bash -c '...' checks expand their own "$1"
source "$(dirname "$0")/lib/common.bash"
# shellcheck source=lib/checks.bash
source "$LIB_DIR/checks.bash"
# shellcheck source=lib/uprobe.bash
source "$LIB_DIR/uprobe.bash"
command -v python3 >/dev/null || skip "needs python3"
build_fixtures
if has '^u_x64 ' missing.txt; then skip "$(grep '^u_x64 ' missing.txt)"; fi

BIN=$WORK/u_x64

listed=$("$PERFTK" uprobe-offset --list-usdt "$BIN" | awk '$2 == "perftk:guarded"') ||
  fail "uprobe-offset --list-usdt $BIN failed"
offset=$(awk '{print $1}' <<< "$listed")
ref_ctr=$(sed -E 's/.*ref_ctr=(0x[0-9a-f]+).*/\1/' <<< "$listed")
run "$BIN" usdt:perftk:guarded
check "hex: offset, ref_ctr and arguments ($out)" \
  test "$rc" = 0 -a "$out" = "$(printf '0x%x' "$offset") ref_ctr=$ref_ctr arg1=%di:s32 arg2=%si:u64 arg3=%dx:s64"
run --format=uprobe-events --group g "$BIN" usdt:guarded
check "uprobe-events: the complete line ($out)" \
  test "$out" = "p:g/usdt_guarded $BIN:$(printf '0x%x' "$offset")($ref_ctr) arg1=%di:s32 arg2=%si:u64 arg3=%dx:s64"
run "$BIN" main usdt:perftk:guarded
check "a function and a USDT probe in one run" test "$rc" = 0 -a "$(wc -l <<< "$out")" = 2

run --format=uprobe-events "$BIN" usdt:perftk:memory
check "an inexpressible argument is left out of the line, the others keep their numbers" \
  bash -c '[[ $1 == *" arg2="* && $1 == *" arg4="* && $1 != *" arg3="* ]]' _ "$out"
check "and named on stderr with its spec and reason" \
  grep -q 'perftk:memory.*arg3 .-4@(%rax,%rdi,4).: base + index' <<< "$err"
run --json "$BIN" usdt:perftk:memory
check "--json names it too" python3 -c '
import json, sys
site = json.loads(sys.argv[1])[0]
args = site["arguments"]
assert site["type"] == "usdt" and len(args) == 6, site
assert "problem" in args[2] and "fetch" not in args[2], args[2]
assert args[0]["fetch"].startswith("@+0x") and args[0]["spec"] == "-4@g_s32(%rip)", args[0]
' "$out"

run "$BIN" usdt:perftk:inlined
check "several sites without --all: exit 1, nothing on stdout" test "$rc" = 1 -a -z "$out"
check "the error lists both sites and --all" grep -q -- 'has 2 sites' <<< "$err"
run --all --format=uprobe-events "$BIN" usdt:perftk:inlined
check "--all: one line per site, unique event names" \
  test "$(awk '{print $1}' <<< "$out" | sort -u | wc -l)" = 2

run "$BIN" usdt:perftk:guardd
check "unknown probe: exit 1, near names" \
  bash -c '[[ $1 == 1 && $2 == *"Did you mean: usdt:perftk:guarded"* ]]' _ "$rc" "$err"
run "$WORK/t_pie" usdt:perftk:guarded
check "no notes: exit 1, says so" \
  bash -c '[[ $1 == 1 && $2 == *"t_pie: no USDT probes"* ]]' _ "$rc" "$err"

# A malformed note: the second note's descriptor size runs past the section.
cp "$BIN" "$WORK/broken"
note=$(python3 - "$WORK/broken" <<'PY'
import struct, subprocess, sys
path = sys.argv[1]
sections = subprocess.run(["readelf", "-SW", path], capture_output=True, text=True).stdout
for line in sections.splitlines():
    fields = line.split("]")[-1].split()
    if fields and fields[0] == ".note.stapsdt":
        start = int(fields[3], 16)
data = bytearray(open(path, "rb").read())
namesz, descsz, _ = struct.unpack_from("<III", data, start)
second = start + 12 + (namesz + 3) // 4 * 4 + (descsz + 3) // 4 * 4
struct.pack_into("<I", data, second + 4, 0x7fffffff)
open(path, "wb").write(data)
print(hex(second))
PY
) || fail "could not break the note of $WORK/broken"
sum=$(md5sum < "$WORK/broken")
run --list-usdt "$WORK/broken"
check "malformed note: exit 1, file and note offset $note named" \
  bash -c '[[ $1 == 1 && -z $2 && $3 == *"broken: offset $4: malformed .note.stapsdt"* ]]' _ \
  "$rc" "$out" "$err" "$note"
check "the input is left untouched" test "$(md5sum < "$WORK/broken")" = "$sum"

run --list-usdt "$BIN" usdt:perftk:guarded
check "--list-usdt with names is refused" test "$rc" != 0 -a -z "$out"
run --string 2 "$BIN" main
check "--string without a usdt: probe is refused" test "$rc" != 0 -a -z "$out"
run --return --format=uprobe-events "$BIN" usdt:perftk:guarded
check "--return on a USDT probe (inside a function) is refused" \
  bash -c '[[ $1 != 0 && -z $2 && $3 == *"--return cannot be used with USDT"* ]]' _ "$rc" "$out" "$err"
run --string 1 "$BIN" usdt:perftk:guarded
check "--string on an int argument is refused, naming it" \
  bash -c '[[ $1 == 1 && $2 == *"argument 1"*"-4@%edi"* ]]' _ "$rc" "$err"

checks_summary
