#!/usr/bin/env bash
# The test and bench scripts run under `set -o pipefail`. A consumer that
# stops reading early (grep -q, head, awk's exit) makes its producer die of
# SIGPIPE when the producer writes after that, so the pipeline fails although
# the consumer found what it wanted; whether it does depends on timing (CI
# failed once on `llvm-readelf -r | grep -Eq`). Scripts use `has PATTERN`,
# `sed -n 1p` and awk without exit instead. A `| head` that only shapes a
# failure message, or that the script means to close (head -c), is allowed.
source "$(dirname "$0")/lib/common.bash"
# Its files go to $WORK: the checkout is only read.
ROOT=$(cd "$LIB_DIR/../../.." && pwd)
cd "$ROOT"
scripts=(tests/shell/*.sh tests/shell/lib/*.bash bench/*.sh)
[ "${#scripts[@]}" -gt 50 ] || fail "found only ${#scripts[@]} scripts under $ROOT"

# Lines with a pipe into an early-exiting consumer, comments left out.
grep -nE '\|[[:space:]]*(grep[[:space:]]+-[a-zA-Z]*q|head[[:space:]]|awk[[:space:]].*[{;][[:space:]]*exit[[:space:]]*[};])' \
  "${scripts[@]}" | grep -vE '^[^:]+:[0-9]+:[[:space:]]*#' >"$WORK/found" || true
# head -c that a test closes on purpose, and heads that shape a failure
# message (inside fail/check arguments, to stderr, or differences()).
grep -vE 'head -c|fail "|check "|>&2|differences\(\)' "$WORK/found" >"$WORK/bad" || true
[ ! -s "$WORK/bad" ] || fail "early-exit consumer in a pipefail pipe: $(cat "$WORK/bad")"
echo "PASS ($(wc -l <"$WORK/found") allowed lines in ${#scripts[@]} scripts)"
