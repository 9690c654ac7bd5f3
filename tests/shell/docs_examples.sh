#!/usr/bin/env bash
# docs/examples.md runs as printed (issue 32): every ```sh block after a
# "<!-- runs -->" line is run by bash -e (with pipefail: a failing command
# inside a pipe fails the block) in a folder of its own that looks like the
# top of the checkout (tests/ linked), with this build's perftk first on
# PATH; each must exit 0 and print something. A block that needs node or
# python3.11 is not run when they are not installed, and says so.
source "$(dirname "$0")/lib/common.bash"
source "$LIB_DIR/checks.bash"
require_perf
ROOT=$(cd "$LIB_DIR/../../.." && pwd)
DOC=$ROOT/docs/examples.md
mkdir bin
ln -s "$PERFTK" bin/perftk

# The blocks, one file each: block.1.sh, block.2.sh, ...
awk -v dir="$WORK" '
  /^<!-- runs -->$/ { armed = 1; next }
  armed && /^```sh$/ { n++; file = dir "/block." n ".sh"; inside = 1; armed = 0; next }
  inside && /^```$/ { inside = 0; close(file); next }
  inside { print > file }
  { armed = 0 }' "$DOC"
blocks=$(find . -maxdepth 1 -name 'block.*.sh' | wc -l)
check "docs/examples.md has blocks to run ($blocks)" test "$blocks" -ge 6
unmarked=$(awk '/^<!-- runs -->$/ { armed = 1; next }
  /^```sh$/ && !armed { n++ } { armed = 0 } END { print n + 0 }' "$DOC")
check "every sh block of docs/examples.md is marked to run ($unmarked not)" test "$unmarked" = 0

for ((i = 1; i <= blocks; i++)); do
  block=$WORK/block.$i.sh
  first=$(grep -m1 -v '^#' "$block")
  missing=
  for tool in node python3.11; do
    if grep -qw "$tool" "$block" && ! command -v "$tool" >/dev/null; then missing=$tool; fi
  done
  if [ -n "$missing" ]; then
    echo "note: block $i needs $missing, which is not installed: not run ($first)"
    continue
  fi
  mkdir "run.$i"
  ln -s "$ROOT/tests" "run.$i/tests"
  set +e
  (cd "run.$i" && PATH=$WORK/bin:$PATH timeout 300 bash -e -o pipefail "$block" >../"out.$i" 2>../"err.$i")
  rc=$?
  set -e
  check "block $i exits 0 (got $rc): $first" test "$rc" = 0
  [ "$rc" = 0 ] || sed 's/^/  stderr: /' "err.$i" | tail -8
  check "block $i prints something" test -s "out.$i"
done
checks_summary
