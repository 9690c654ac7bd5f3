#!/usr/bin/env bash
# The README's quick start runs as printed (issue 32): every ```sh block
# after a "<!-- quick-start -->" line is run by bash -e from a folder that
# looks like the top of the checkout (tests/ linked), with this build's
# perftk first on PATH; each must exit 0 and print something.
source "$(dirname "$0")/lib/common.bash"
source "$LIB_DIR/checks.bash"
require_perf
ROOT=$(cd "$LIB_DIR/../../.." && pwd)
README=$ROOT/README.md
ln -s "$ROOT/tests" tests
mkdir bin
ln -s "$PERFTK" bin/perftk

# The blocks, one file each: block.1.sh, block.2.sh, ...
awk -v dir="$WORK" '
  /^<!-- quick-start -->$/ { armed = 1; next }
  armed && /^```sh$/ { n++; file = dir "/block." n ".sh"; inside = 1; armed = 0; next }
  inside && /^```$/ { inside = 0; close(file); next }
  inside { print > file }
  { armed = 0 }' "$README"
blocks=$(ls block.*.sh 2>/dev/null | wc -l)
check "the README has quick-start blocks ($blocks)" test "$blocks" -ge 5

for ((i = 1; i <= blocks; i++)); do
  block=block.$i.sh
  first=$(head -1 "$block")
  if grep -qw node "$block" && ! command -v node >/dev/null; then
    echo "note: block $i needs node, which is not installed: not run ($first)"
    continue
  fi
  set +e
  PATH=$WORK/bin:$PATH timeout 300 bash -e "$block" >"out.$i" 2>"err.$i"
  rc=$?
  set -e
  check "block $i exits 0 (got $rc): $first" test "$rc" = 0
  [ "$rc" = 0 ] || sed 's/^/  stderr: /' "err.$i" | tail -5
  check "block $i prints something" test -s "out.$i"
done
checks_summary
