#!/usr/bin/env bash
# Out of memory is a clear error (issue 26, D6): merge-profiles of two
# profiles with 2 million distinct ranges each, under a 200 MB address
# space limit, exits 1 with a message and leaves neither the output nor
# its temporary file (it aborted, 134, silent, and left OUT.tmp.PID). The
# same profiles merge under no limit. Not under ASan, whose allocator
# reserves more address space than any such limit and reports instead.
source "$(dirname "$0")/lib/common.bash"
source "$LIB_DIR/checks.bash"
source "$LIB_DIR/safety.bash"
asan_build && skip "an ASan build: ulimit -v cannot be applied"
python3 - >big.txt <<'PY'
import sys
n = 2000000
out = sys.stdout
out.write(f"{n}\n")
out.writelines(f"{i * 16:x}-{i * 16 + 8:x}:1\n" for i in range(n))
out.write("0\n0\n// build_id: 0x0c9a20bf9c009d0e4e8bbf9fad0300ae00000000\n// /opt/prog\n")
PY
run bash -c "ulimit -v 200000; exec '$PERFTK' merge-profiles -q -o merged.txt big.txt big.txt"
check "merge-profiles under 200 MB: exit 1 (got $rc)" test "$rc" = 1
check "merge-profiles under 200 MB: the message says out of memory ($(last_error))" \
  err_has '^perftk: out of memory'
check "merge-profiles under 200 MB: no output, no temporary file ($(temps_in .))" \
  test ! -e merged.txt -a -z "$(temps_in .)"
run "$PERFTK" merge-profiles -q -o merged.txt big.txt big.txt
check "merge-profiles without a limit: exit 0 ($(last_error))" test "$rc" = 0
check "merge-profiles without a limit: 2 million ranges, each counted twice" \
  test "$(grep -c ':2$' merged.txt)" = 2000000
checks_summary
