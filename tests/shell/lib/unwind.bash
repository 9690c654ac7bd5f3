# Checks of `perftk unwind` against the real perf. Sourced after common.bash.
#
# perf unwinds the input's stack copies itself (libunwind in Debian's perf
# 6.1; perftk uses libdw) and adds the functions inlined at each unwound pc
# as extra "(inlined)" entries; a plain call chain cannot carry those, so
# the input is reported with --no-inline, which leaves out exactly those
# entries. Everything else must be equal line for line.
#
# EXIT_NOTE: the programs whose recordings are compared end with _exit, not
# by returning from main. On the way out, glibc runs the program's
# __do_global_dtors_aux (crtstuff), which has no CFI; perf 6.1 unwinds with
# libunwind, which guesses that frame's callers through the frame pointer,
# while perftk never guesses (see unwind_no_cfi.sh). A sample that landed
# there (1 recording in about 20 on a loaded machine: a page fault in
# __unregister_atfork under __cxa_finalize) made the chains differ. For the
# same reason a library the test dlcloses is linked without start files, so
# it has no such destructor.

UNWIND_REPORT_MODES=(
  "--children"
  "--no-children"
  "--children -g none"
  "--no-children -g none"
  "--children -g folded"
  "--no-children -g folded"
  "--no-children --sort dso,sym -g folded"
)

# check_unwind IN [perftk unwind options...]: unwinds IN into out.data and
# compares every report mode and perf script; checks that the stack copies
# and registers are gone and that the summary counts every sample.
check_unwind() {
  local in=$1
  shift
  "$PERFTK" unwind -i "$in" -o out.data "$@" 2>unwind.log ||
    { cat unwind.log >&2; fail "perftk unwind failed"; }
  cat unwind.log
  local mode
  for mode in "${UNWIND_REPORT_MODES[@]}"; do
    # shellcheck disable=SC2086
    report_of "$in" --no-inline $mode >in.report
    # shellcheck disable=SC2086
    report_of out.data $mode >out.report
    same_listing "perf report $mode" in.report out.report
  done
  perf script --no-inline -i "$in" -F comm,tid,time,ip,sym,dso 2>in.err >in.script
  perf script -i out.data -F comm,tid,time,ip,sym,dso 2>out.err >out.script
  same_listing "perf script (call chains)" in.script out.script
  # The same warnings as for the input (a recording that lost events says so).
  if ! cmp -s in.err out.err; then
    diff -u in.err out.err >&2
    fail "perf script warns on the output"
  fi
  "$PERFTK" dump -i out.data --header-only >out.header
  if has -E 'REGS_USER|STACK_USER' out.header; then
    fail "the output's attrs still ask for register and stack copies"
  fi
  event_desc_matches_attrs out.data
  "$PERFTK" dump -i out.data | has -E 'regs_user|stack_user' &&
    fail "the output's samples still carry registers or stack copies"
  # Folded call graphs three functions deep: user frames were unwound, not
  # just the sampled functions kept.
  report_of out.data --no-children -g folded | has -E '^[0-9.]+% [^;]+;[^;]+;[^;]+' ||
    fail "no call chain of three functions in the output: nothing was unwound"
  # Frames taken over from a thread's previous sample are those libdw finds
  # when it unwinds every frame itself: the bytes are the same.
  "$PERFTK" unwind -q -i "$in" -o every_frame.data --no-take-over "$@" ||
    fail "perftk unwind --no-take-over failed"
  cmp out.data every_frame.data || fail "the output differs with --no-take-over"
  echo "ok: ${#UNWIND_REPORT_MODES[@]} report modes and perf script equal ($(wc -l <in.script) script lines), with and without frames taken over"
}

# event_desc_matches_attrs FILE: the attrs perf report --header-only lists
# (the EVENT_DESC feature's copies) are those perf evlist -v reads from the
# attrs section, field for field, and neither asks for stack copies.
event_desc_matches_attrs() {
  local file=$1
  perf report --header-only -i "$file" 2>/dev/null | grep '^# event :' |
    sed -e 's/^.* type = /type = /' -e 's/ = /: /g' >"$file.event_desc"
  perf evlist -v -i "$file" 2>/dev/null | sed -e 's/^[^:]*: type: /type: /' >"$file.evlist"
  [ -s "$file.event_desc" ] || fail "perf report --header-only lists no event of $file"
  same_listing "EVENT_DESC attrs and the attrs section of $file" "$file.evlist" "$file.event_desc"
  if has -E 'REGS_USER|STACK_USER|exclude_callchain_user|sample_stack_user' "$file.event_desc"; then
    fail "the EVENT_DESC attrs of $file still ask for register and stack copies"
  fi
}

# unwound_fully_at_least PERCENT: the summary in unwind.log says at least
# PERCENT of the samples with a stack copy were unwound fully.
unwound_fully_at_least() {
  local percent=$1 with_stack full
  with_stack=$(grep -o '[0-9]* of [0-9]* samples had a stack copy' unwind.log | cut -d' ' -f1)
  full=$(grep -o '[0-9]* unwound fully' unwind.log | cut -d' ' -f1)
  [ -n "$with_stack" ] && [ "$with_stack" -gt 0 ] || fail "the summary counts no sample with a stack copy"
  [ $((full * 100)) -ge $((with_stack * percent)) ] ||
    fail "only $full of $with_stack samples unwound fully (want $percent%)"
  echo "ok: $full of $with_stack samples unwound fully"
}

# at_most_percent_of SMALL BIG PERCENT: file SMALL is at most PERCENT% of BIG.
at_most_percent_of() {
  local small big percent=$3
  small=$(stat -c %s "$1")
  big=$(stat -c %s "$2")
  [ $((small * 100)) -le $((big * percent)) ] ||
    fail "$1 is $small bytes, more than $percent% of $2 ($big bytes)"
  echo "ok: $1 is $small bytes, $((small * 1000 / big))‰ of $2 ($big bytes)"
}
