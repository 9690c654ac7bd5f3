#!/usr/bin/env bash
# The perftk command line: --version, help, exit codes, dump's JSON, and
# copy's refusals (bad input: exit 1 naming the offset, no output file; the
# output may not be the input).
source "$(dirname "$0")/lib/common.bash"
require_perf

expect_exit 0 "$PERFTK" --version
grep -q '^perftk [0-9]' cmd.out || fail "--version prints no version"
for sub in aslr jit cs-etm-decode uprobe-offset dump copy; do
  expect_exit 0 "$PERFTK" help "$sub"
  grep -q 'Usage' cmd.out || fail "help $sub shows no usage"
  grep -q 'Examples' cmd.out || fail "help $sub shows no examples"
done
expect_exit 2 "$PERFTK" no-such-subcommand
expect_exit 2 "$PERFTK"
expect_exit 2 "$PERFTK" cs-etm-decode --format=perf -i x.data  # needs -o

build_workload
perf record -q -e cpu-clock -g -o in.data -- ./workload 100 >/dev/null
"$PERFTK" dump -i in.data --json >dump.jsonl
python3 - dump.jsonl <<'PY'
import json, sys
kinds = {}
for line in open(sys.argv[1]):
    item = json.loads(line)
    kinds[item["kind"]] = kinds.get(item["kind"], 0) + 1
assert kinds.get("header") == 1 and kinds.get("attr", 0) >= 1 and kinds.get("record", 0) > 10, kinds
PY

size=$(stat -c %s in.data)
head -c $((size / 2)) in.data >cut.data  # inside the data section
expect_exit 1 "$PERFTK" copy -i cut.data -o out.data
grep -q 'offset' cmd.err || fail "the error names no offset: $(cat cmd.err)"
[ ! -e out.data ] || fail "a partial output was left"
expect_exit 1 "$PERFTK" copy -i in.data -o in.data
expect_exit 1 "$PERFTK" dump -i /nonexistent.data
expect_exit 1 "$PERFTK" dump -i "$WORK"
echo "ok"
