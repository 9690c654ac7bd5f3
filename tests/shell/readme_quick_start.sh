#!/usr/bin/env bash
# The README's quick start runs as printed (issue 32): every ```sh block
# after a "<!-- quick-start -->" line is run by bash -e from a folder that
# looks like the top of the checkout (tests/ linked), with this build's
# perftk first on PATH; each must exit 0 and print something.
source "$(dirname "$0")/lib/common.bash"
source "$LIB_DIR/checks.bash"
source "$LIB_DIR/doc_blocks.bash"
require_perf
ROOT=$(cd "$LIB_DIR/../../.." && pwd)
README=$ROOT/README.md
ln -s "$ROOT/tests" tests
mkdir bin
ln -s "$PERFTK" bin/perftk

# The blocks, one file each: block.1.sh, block.2.sh, ...
blocks=$(doc_blocks quick-start "$WORK" "$README")
check "the README has quick-start blocks ($blocks)" test "$blocks" -ge 5

for ((i = 1; i <= blocks; i++)); do
  block=block.$i.sh
  first=$(head -1 "$block")
  missing=$(missing_tool "$block")
  if [ -n "$missing" ]; then
    echo "note: block $i needs $missing, which is not installed: not run ($first)"
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
