#!/bin/bash
# uprobe-offset --list-usdt --format=uprobe-events on the Debian programs and
# libraries that carry USDT probes (python3.11, libpython3.11, libstdc++ and
# the programs that link it statically: gcc, ld.gold, lto-dump): the kernel
# accepts every line as is (offset, ref_ctr_offset, every fetch argument).
# The events are only defined, never enabled, and deleted again. Needs root,
# perf and tracefs; exits 77 otherwise.
set -uo pipefail

PERFTK=${PERFTK:?set PERFTK to the perftk binary}
source "$(dirname "$0")/lib/tracefs.bash"
require_tracefs "to write uprobe_events"

work=$(mktemp -d /tmp/perftk-usdt-kernel.XXXXXX)
GROUP=perftk_usdt_accepts
delete_events() {
  grep -o "^p:$GROUP[0-9]*/[^ ]*" "$TRACEFS/uprobe_events" 2> /dev/null |
    while read -r event; do echo "-:${event#p:}" >> "$TRACEFS/uprobe_events"; done
}
trap 'delete_events; rm -rf "$work"' EXIT
source "$(dirname "$0")/lib/checks.bash"

n=0
for file in /usr/bin/python3.11 /usr/lib/x86_64-linux-gnu/libpython3.11.so.1.0 \
            /usr/lib/x86_64-linux-gnu/libstdc++.so.6 /usr/bin/gcc-12 /usr/bin/x86_64-linux-gnu-ld.gold \
            /usr/bin/lto-dump-12; do
  [[ -e $file ]] || continue
  n=$((n + 1))
  if ! "$PERFTK" uprobe-offset --list-usdt --format=uprobe-events --group "$GROUP$n" "$file" \
       > "$work/lines" 2> "$work/err"; then
    check "$file: --list-usdt --format=uprobe-events" false
    cat "$work/err"
    continue
  fi
  refused=0
  while read -r line; do
    echo "$line" >> "$TRACEFS/uprobe_events" 2> /dev/null || { refused=$((refused + 1)); echo "refused: $line"; }
  done < "$work/lines"
  delete_events
  check "$file: the kernel accepts all $(wc -l < "$work/lines") lines" \
    test -s "$work/lines" -a "$refused" = 0
done
[[ $n -gt 0 ]] || { echo "SKIP: none of the files is installed"; exit 77; }
checks_summary
