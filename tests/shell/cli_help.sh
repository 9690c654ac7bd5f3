#!/usr/bin/env bash
# Help that works for a newcomer (issue 32): bare `perftk`, `perftk help`
# and `perftk --help` list the subcommands one line each; a mistyped
# subcommand, help topic or option is named with the nearest real one; -q
# silences the progress line as well as the summary.
source "$(dirname "$0")/lib/common.bash"
source "$LIB_DIR/checks.bash"

subcommands="aslr jit cs-etm-decode merge-profiles unwind uprobe-offset dump copy help"
# listed FILE: the subcommand lines of an overview, as "name" per line.
listed() { sed -n '/^Subcommands:/,/^$/p' "$1" | awk 'NR > 1 && NF { print $1 }'; }
lists_each_once() {
  [ "$(listed "$1" | paste -sd' ')" = "$subcommands" ] &&
    [ "$(sed -n '/^Subcommands:/,/^$/p' "$1" | awk 'length > 80' | wc -l)" = 0 ]
}

set +e
"$PERFTK" >bare.out 2>bare.err
bare_rc=$?
"$PERFTK" help >help.out 2>help.err
help_rc=$?
"$PERFTK" --help >dashhelp.out 2>&1
dashhelp_rc=$?
set -e
check "bare perftk exits 2 (got $bare_rc)" test "$bare_rc" = 2
check "bare perftk lists every subcommand, one line each, within 80 columns" lists_each_once bare.err
check "perftk help exits 0 (got $help_rc)" test "$help_rc" = 0
check "perftk help lists every subcommand, one line each" lists_each_once help.out
check "perftk help says nothing on stderr" test ! -s help.err
check "perftk --help exits 0 (got $dashhelp_rc)" test "$dashhelp_rc" = 0
check "perftk --help is the same list" cmp -s help.out dashhelp.out

# says_near STATUS WANT CMD...: CMD exits STATUS and its stderr has WANT.
says_near() {
  local status=$1 want=$2 rc
  shift 2
  set +e
  "$@" >near.out 2>near.err
  rc=$?
  set -e
  [ "$rc" = "$status" ] && grep -qF -- "$want" near.err || {
    echo "  '$*' exited $rc: $(head -c 300 near.err)"
    return 1
  }
}
check "perftk ASLR suggests aslr" \
  says_near 2 "'ASLR' is not a perftk subcommand; did you mean 'aslr'?" "$PERFTK" ASLR -i x.data
check "perftk uprobe suggests uprobe-offset" \
  says_near 2 "did you mean 'uprobe-offset'?" "$PERFTK" uprobe /bin/true main
check "perftk record names no subcommand it does not have" \
  says_near 2 "'record' is not a perftk subcommand" "$PERFTK" record
check "perftk record suggests nothing" test -z "$(grep -F 'did you mean' near.err)"
check "perftk help aslrr suggests aslr" \
  says_near 2 "'aslrr' is not a perftk subcommand; did you mean 'aslr'?" "$PERFTK" help aslrr
check "--fromat suggests --format" \
  says_near 2 "no option '--fromat'; did you mean '--format'?" "$PERFTK" cs-etm-decode --fromat=perf
check "--jbos suggests --jobs" says_near 2 "did you mean '--jobs'?" "$PERFTK" cs-etm-decode --jbos 2
# perf's short options keep perf's meaning: perf inject's -j is --jit.
for sub in jit unwind cs-etm-decode; do
  check "perftk $sub has no -j (perf inject's --jit)" says_near 2 "no option '-j'" "$PERFTK" $sub -o x.data -j 2
  check "... and suggests no other letter" test -z "$(grep -F 'did you mean' near.err)"
done
check "the hint names the subcommand's help" says_near 2 'perftk help cs-etm-decode' \
  "$PERFTK" cs-etm-decode --itrace-il64

# -q: no progress line on a terminal either (script(1)'s pseudo-terminal).
# (cs_etm_progress.sh checks a decode long enough to draw progress.)
build_workload
if command -v script >/dev/null &&
  perf record -q -e cpu-clock -o in.data -- ./workload 300 >/dev/null 2>&1; then
  script -qfec "'$PERFTK' copy -i in.data -o out.data" /dev/null >tty.out
  check "copy on a terminal shows its summary" has -F 'perftk copy:' tty.out
  script -qfec "'$PERFTK' copy -q -i in.data -o out.data" /dev/null >tty.out
  check "copy -q on a terminal writes nothing ($(head -c 200 tty.out | tr '\r' ' '))" test ! -s tty.out

  # -i and -o default to '-' as in perf inject; a terminal is refused.
  for sub in aslr copy jit unwind; do
    set +e
    script -qfec "'$PERFTK' $sub -o out.data" /dev/null >tty.out
    in_rc=$?
    script -qfec "'$PERFTK' $sub -i in.data" /dev/null >tty.out2
    out_rc=$?
    set -e
    check "$sub from a terminal: exit 2 (got $in_rc)" test "$in_rc" = 2
    check "... with a hint to name it with -i" has -F 'standard input (-i -, the default), which is a terminal: name it with -i FILE' tty.out
    check "$sub to a terminal: exit 2 (got $out_rc)" test "$out_rc" = 2
    check "... with a hint to name it with -o" has -F 'standard output (-o -, the default), which is a terminal: name the file with -o FILE' tty.out2
  done
  check "perftk copy <in.data >out.data needs no flags" \
    eval "'$PERFTK' copy -q <in.data >stdin.data && '$PERFTK' copy -q -i in.data -o - | cmp -s - stdin.data"
  perf record -q -e cpu-clock -o - -- ./workload 100 2>/dev/null | "$PERFTK" aslr -q |
    perf report -i - --stdio --sort comm 2>/dev/null >report.txt
  check "perf record -o - | perftk aslr | perf report -i -: no flags" has -E '%.*workload' report.txt
  check "dump reads a pipe'd stdin by default, as perf report does" \
    eval "'$PERFTK' copy -q -i in.data | '$PERFTK' dump | has -F 'layout=pipe'"
else
  echo "note: no script(1) or no perf: -q on a terminal is not checked"
fi
checks_summary
