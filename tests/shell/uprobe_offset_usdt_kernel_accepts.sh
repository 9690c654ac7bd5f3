#!/bin/bash
# uprobe-offset --list-usdt --format=uprobe-events on the Debian programs and
# libraries that carry USDT probes (python3.11, libpython3.11, libstdc++ and
# the programs that link it statically: gcc, ld.gold, lto-dump): the kernel
# accepts every line as is (offset, ref_ctr_offset, every fetch argument).
# The events are only defined, never enabled, and deleted again. Needs root,
# perf and tracefs; exits 77 otherwise.
source "$(dirname "$0")/lib/common.bash"
# shellcheck source=lib/checks.bash
source "$LIB_DIR/checks.bash"
# shellcheck source=lib/uprobe.bash
source "$LIB_DIR/uprobe.bash"
require_tracefs "to write uprobe_events"

GROUP=perftk_usdt_accepts
delete_events() { uprobe_delete_group "${GROUP}[0-9]*"; }
at_exit delete_events

n=0
for file in /usr/bin/python3.11 /usr/lib/x86_64-linux-gnu/libpython3.11.so.1.0 \
            /usr/lib/x86_64-linux-gnu/libstdc++.so.6 /usr/bin/gcc-12 /usr/bin/x86_64-linux-gnu-ld.gold \
            /usr/bin/lto-dump-12; do
  [[ -e $file ]] || continue
  n=$((n + 1))
  if ! "$PERFTK" uprobe-offset --list-usdt --format=uprobe-events --group "$GROUP$n" "$file" \
       > "$WORK/lines" 2> "$WORK/err"; then
    check "$file: --list-usdt --format=uprobe-events" false
    cat "$WORK/err"
    continue
  fi
  refused=0
  while read -r line; do
    uprobe_add "$line" ||
      { refused=$((refused + 1)); echo "refused: $line ($(cat "$WORK/uprobe_add.err"))"; }
  done < "$WORK/lines"
  delete_events
  check "$file: the kernel accepts all $(wc -l < "$WORK/lines") lines" \
    test -s "$WORK/lines" -a "$refused" = 0
done
[[ $n -gt 0 ]] || skip "none of the files is installed"
checks_summary
