# Counted checks for tests/shell scripts that report every check and fail at
# the end (rather than at the first failure). Sourced, never run.
#   check DESCRIPTION COMMAND...   runs COMMAND, prints ok/FAIL
#   checks_summary                 prints the counts; fails if any failed
failures=0
checks=0
check() {
  local what=$1
  shift
  checks=$((checks + 1))
  if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; failures=$((failures + 1)); fi
}
checks_summary() {
  echo "$checks checks, $failures failures"
  [[ $failures -eq 0 ]]
}
