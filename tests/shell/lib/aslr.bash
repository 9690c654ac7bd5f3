# Checks of `perftk aslr` against the real perf. Sourced after common.bash.

# perf report output, header comments and blank lines removed.
aslr_report() {
  local file=$1
  shift
  perf report -i "$file" --stdio "$@" 2>/dev/null | grep -v '^#' | grep -v '^$' || true
}

# Reports of input and output must match entry for entry (see
# compare_reports.py: only raw unknown addresses may differ, and only ties
# may trade places).
same_report_but_unknowns() {
  local what=$1 expected=$2 actual=$3
  python3 "$LIB_DIR/compare_reports.py" "$expected" "$actual" || fail "$what differs"
}

# The whole acceptance check of one recording: reports, leak scan, perf script
# without warnings, determinism, and a second pass changing no symbolization.
check_aslr() {
  local in=$1
  shift
  "$PERFTK" aslr -i "$in" -o out.data "$@" 2>aslr.log || { cat aslr.log >&2; fail "perftk aslr failed"; }
  cat aslr.log

  # ASLR_REPORT_OPTIONS: e.g. "--no-children -g none" where call graphs
  # cannot survive (dwarf stacks are removed).
  aslr_report "$in" --sort dso,sym ${ASLR_REPORT_OPTIONS:---children} >in.dso_sym
  aslr_report out.data --sort dso,sym ${ASLR_REPORT_OPTIONS:---children} >out.dso_sym
  same_report_but_unknowns "perf report --sort dso,sym" in.dso_sym out.dso_sym
  aslr_report "$in" --sort comm,dso,sym -g none ${ASLR_REPORT_OPTIONS:---children} >in.comm
  aslr_report out.data --sort comm,dso,sym -g none ${ASLR_REPORT_OPTIONS:---children} >out.comm
  same_report_but_unknowns "perf report --sort comm,dso,sym -g none" in.comm out.comm

  "$PERFTK" dump -i "$in" >in.dump
  local in_hits out_hits
  "$PERFTK" dump -i out.data >out.dump
  in_hits=$(python3 "$LIB_DIR/leak_scan.py" in.dump "$in" in.dump 2>/dev/null)
  out_hits=$(python3 "$LIB_DIR/leak_scan.py" in.dump out.data out.dump)
  [ "$in_hits" -gt 0 ] || fail "the leak scan finds nothing in the input: it proves nothing"
  [ "$out_hits" -eq 0 ] || fail "$out_hits original addresses are left in the output"

  perf script -i out.data >/dev/null 2>script.err || fail "perf script failed on the output"
  # No warning but those the input has too: a system-wide recording made
  # under load may have lost chunks and samples, and says so in both.
  perf script -i "$in" >/dev/null 2>in_script.err || true
  if [ -s script.err ] && ! cmp -s in_script.err script.err; then
    diff -u in_script.err script.err >&2 || true
    fail "perf script warns on the output"
  fi

  "$PERFTK" aslr -q -i "$in" -o again.data "$@"
  cmp -s out.data again.data || fail "two runs gave different outputs"

  "$PERFTK" aslr -q -i out.data -o twice.data
  aslr_report twice.data --sort dso,sym ${ASLR_REPORT_OPTIONS:---children} >twice.dso_sym
  same_report_but_unknowns "a second aslr pass" out.dso_sym twice.dso_sym
  echo "ok: $(wc -l <in.dso_sym) report lines kept; leak scan: $in_hits in the input, 0 in the output"
}
