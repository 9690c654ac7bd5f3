#!/usr/bin/env bash
# The docs run as printed (issue 32): every ```sh block after a
# "<!-- runs -->" line of docs/*.md is run by bash -e -o pipefail (a failing
# command inside a pipe fails the block) in a folder of its own that looks
# like the top of the checkout (tests/, third_party/, scripts/ and build/
# linked), with this build's perftk first on PATH; each must exit 0 and
# print something. Every block of docs/examples.md is marked; in the other
# docs, the long recipes that their own shell tests and benches run are
# not. A block that needs node or python3.11 is not run when they are not
# installed, and says so.
source "$(dirname "$0")/lib/common.bash"
source "$LIB_DIR/checks.bash"
source "$LIB_DIR/doc_blocks.bash"
require_perf
ROOT=$(cd "$LIB_DIR/../../.." && pwd)
BUILD=$(cd "$(dirname "$PERFTK")/.." && pwd)
mkdir bin
ln -s "$PERFTK" bin/perftk

# The blocks: block.N.sh, and which doc each is from (block.N.doc).
blocks=$(doc_blocks runs "$WORK" "$ROOT"/docs/*.md)
from_examples=$(grep -lx examples.md block.*.doc | wc -l)
check "docs/examples.md has blocks to run ($from_examples)" test "$from_examples" -ge 6
check "other docs have blocks to run ($((blocks - from_examples)))" test "$((blocks - from_examples))" -ge 1
unmarked=$(awk '/^<!-- runs -->$/ { armed = 1; next }
  /^```sh$/ && !armed { n++ } { armed = 0 } END { print n + 0 }' "$ROOT/docs/examples.md")
check "every sh block of docs/examples.md is marked to run ($unmarked not)" test "$unmarked" = 0

for ((i = 1; i <= blocks; i++)); do
  block=$WORK/block.$i.sh
  first=$(grep -m1 -v '^#' "$block")
  missing=$(missing_tool "$block")
  if [ -n "$missing" ]; then
    echo "note: block $i needs $missing, which is not installed: not run ($first)"
    continue
  fi
  mkdir "run.$i"
  for dir in tests third_party scripts; do ln -s "$ROOT/$dir" "run.$i/$dir"; done
  ln -s "$BUILD" "run.$i/build"
  set +e
  (cd "run.$i" && PATH=$WORK/bin:$PATH timeout 300 bash -e -o pipefail "$block" >../"out.$i" 2>../"err.$i")
  rc=$?
  set -e
  check "$(cat "block.$i.doc") block $i exits 0 (got $rc): $first" test "$rc" = 0
  [ "$rc" = 0 ] || sed 's/^/  stderr: /' "err.$i" | tail -8
  check "block $i prints something" test -s "out.$i"
done
checks_summary
