#!/bin/bash
# uprobe-offset --list-usdt against readelf -n: for /usr/bin/python3.11 and
# libstdc++.so.6 (Debian 12 ships both with USDT probes) every note readelf
# prints is listed once, in order, with the same provider, name, location,
# base, semaphore and argument string; every offset holds the nop
# <sys/sdt.h> puts at a probe, and every ref_ctr is the semaphore's address
# translated through the LOAD segment holding it (readelf -l). Exits 77 when
# neither file is there.
source "$(dirname "$0")/lib/common.bash"
# shellcheck source=lib/checks.bash
source "$LIB_DIR/checks.bash"
command -v readelf > /dev/null || skip "needs readelf"
command -v python3 > /dev/null || skip "needs python3"

# Our listing as "PROVIDER:NAME location=.. base=.. semaphore=.. ARGS".
ours_without_offsets() {
  sed -E 's/^0x[0-9a-f]+  //; s/ ref_ctr=0x[0-9a-f]+//' "$1"
}

# readelf -n's stapsdt notes in the same form.
readelf_notes() {
  readelf -nW "$1" | python3 -c '
import re, sys
note = None
for line in sys.stdin:
    m = re.search(r"Provider: (.*)$", line)
    if m:
        note = {"provider": m.group(1)}
        continue
    if note is None:
        continue
    s = line.strip()
    if s.startswith("Name: "):
        note["name"] = s[6:]
    elif s.startswith("Location: "):
        loc, base, sem = (int(x.split()[-1], 16) for x in s.split(", "))
        note["addresses"] = "location=0x%x base=0x%x semaphore=0x%x" % (loc, base, sem)
    elif s.startswith("Arguments:"):
        args = s[len("Arguments:"):].strip()
        text = "%s:%s  %s" % (note["provider"], note["name"], note["addresses"])
        print(text + ("  " + args if args else ""))
        note = None
'
}

# Offsets hold a nop (0x90); ref_ctr = semaphore - p_vaddr + p_offset of
# the LOAD segment holding it. Prints one line per problem.
check_offsets() {
  local file=$1 listing=$2
  readelf -lW "$file" | awk '$1 == "LOAD" {print $2, $3, $5}' > "$WORK/loads"
  python3 - "$file" "$listing" "$WORK/loads" <<'PY'
import re, sys
data = open(sys.argv[1], "rb").read()
loads = [tuple(int(x, 16) for x in l.split()) for l in open(sys.argv[3])]
for line in open(sys.argv[2]):
    offset = int(line.split()[0], 16)
    semaphore = int(re.search(r"semaphore=(0x[0-9a-f]+)", line).group(1), 16)
    ref_ctr = int(re.search(r"ref_ctr=(0x[0-9a-f]+)", line).group(1), 16)
    if data[offset] != 0x90:
        print("no nop at offset %#x: %s" % (offset, line.strip()))
    want = 0
    for off, vaddr, size in loads:
        if semaphore and vaddr <= semaphore < vaddr + size:
            want = semaphore - vaddr + off
    if ref_ctr != want:
        print("ref_ctr %#x, LOAD segments give %#x: %s" % (ref_ctr, want, line.strip()))
PY
}

compared=0
for file in /usr/bin/python3.11 /usr/lib/x86_64-linux-gnu/libstdc++.so.6; do
  [[ -e $file ]] || { echo "note: $file not installed"; continue; }
  name=$(basename "$file")
  compared=$((compared + 1))
  if ! "$PERFTK" uprobe-offset --list-usdt "$file" > "$WORK/$name.ours" 2> "$WORK/err"; then
    check "$name: --list-usdt ($(cat "$WORK/err"))" false
    continue
  fi
  readelf_notes "$file" > "$WORK/$name.readelf"
  ours_without_offsets "$WORK/$name.ours" > "$WORK/$name.ours.notes"
  check "$name: readelf -n shows USDT notes" test -s "$WORK/$name.readelf"
  check "$name: --list-usdt equals readelf -n ($(wc -l < "$WORK/$name.readelf") notes)" \
    diff -u "$WORK/$name.readelf" "$WORK/$name.ours.notes"
  check_offsets "$file" "$WORK/$name.ours" > "$WORK/$name.problems" ||
    echo "the offset check itself failed" >> "$WORK/$name.problems"
  check "$name: every offset holds the probe's nop, every ref_ctr its semaphore" \
    bash -c "[[ ! -s '$WORK/$name.problems' ]] || { cat '$WORK/$name.problems'; false; }"
done
[[ $compared -gt 0 ]] || skip "neither python3.11 nor libstdc++.so.6 is installed"
checks_summary
