#!/bin/bash
# uprobe-offset agrees with `perf probe -x BIN FUNC` wherever perf probe
# succeeds: the offset perf registers in uprobe_events equals ours. perf runs
# with an empty --buildid-dir so no cached copy of a binary is used. Every
# probe perf adds is deleted again, even on failure. Exits 77 without root,
# perf or tracefs.
source "$(dirname "$0")/lib/common.bash"
# shellcheck source=lib/checks.bash
source "$LIB_DIR/checks.bash"
# shellcheck source=lib/uprobe.bash
source "$LIB_DIR/uprobe.bash"
require_tracefs "for perf probe"
mkdir -p "$WORK/buildid"
at_exit uprobe_delete_group perftk_cmp
build_fixtures

# Hex numbers of any width -> sorted decimal list on one line.
normalize() { while read -r x; do printf '%d\n' "$x"; done | sort -n | tr '\n' ' '; }

n=0
# same_offsets PERF OURS: perf probe's offsets equal ours; says both otherwise.
same_offsets() {
  [[ $2 == "$1" ]] || { echo "  perf probe registered '$1', perftk says '$2'"; false; }
}
# compare FILE FUNC [perftk options]: perf probe's offset for FUNC vs ours.
compare() {
  local file=$1 func=$2
  shift 2
  n=$((n + 1))
  local event="perftk_cmp/f$n"
  if ! perf --buildid-dir "$WORK/buildid" probe -q -x "$file" -a "perftk_cmp:f$n=$func" \
       > "$WORK/perf.log" 2>&1; then
    echo "note: perf probe cannot probe $func in $file: $(head -1 "$WORK/perf.log")"
    return
  fi
  local perf_offsets
  perf_offsets=$(grep "^p:$event " "$TRACEFS/uprobe_events" | sed 's/.*:\(0x[0-9a-f]*\).*/\1/' |
                 normalize) || true
  uprobe_delete_group perftk_cmp
  local ours
  if ! ours=$("$PERFTK" uprobe-offset "$@" "$file" "$func" 2> "$WORK/err"); then
    check "$file $func: perftk resolves it as perf probe did ($perf_offsets): $(cat "$WORK/err")" false
    return
  fi
  ours=$(echo "$ours" | awk '{print $NF}' | normalize)
  check "$file $func = $ours" same_offsets "$perf_offsets" "$ours"
}

for binary in t_pie t_nopie t_static t_cetplt t_lld t_lld_nopie; do
  [[ -e $WORK/$binary ]] || continue
  for func in global_fn weak_fn other_local main; do compare "$WORK/$binary" "$func"; done
done
# perf probe puts a multi-location probe on both static local_fn.
compare "$WORK/t_pie" local_fn --all
compare "$WORK/libv.so" lib_plain
compare "$WORK/libv_based.so" lib_plain
LIBC=/usr/lib/x86_64-linux-gnu/libc.so.6
if [[ -e $LIBC ]]; then
  compare "$LIBC" malloc
  compare "$LIBC" free
fi

[[ $checks -gt 0 ]] || fail "perf probe could probe nothing: nothing compared"
checks_summary
