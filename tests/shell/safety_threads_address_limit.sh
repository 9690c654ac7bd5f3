#!/usr/bin/env bash
# Threads under an address-space limit (ulimit -v): `perftk unwind --jobs 2`
# runs where `--jobs 1` runs, with room for a second lane more, and writes
# the same bytes. glibc gives each thread that allocates a heap of
# its own, which reserves 64 MB of address space; under a tight limit that
# fails, and then every chunk the thread allocates is mapped on its own:
# --jobs 2 ran out of memory at a limit --jobs 1 decoded under, and took
# three times as long at a looser one. Not under ASan, whose allocator
# reserves more address space than any such limit.
source "$(dirname "$0")/lib/common.bash"
source "$LIB_DIR/checks.bash"
source "$LIB_DIR/safety.bash"
require_perf
command -v python3 >/dev/null || skip "python3 is not installed"
asan_build && skip "an ASan build: ulimit -v cannot be applied"
# A Python loop: its samples' stacks run through many modules, whose
# unwinding state the threads allocate.
perf record -q -e cpu-clock --call-graph dwarf -o in.data -- \
  python3 -c 'sum(i * i for i in range(5 * 10**6))' >/dev/null
unwind_under() {  # KB JOBS OUT
  run bash -c "ulimit -v $1; exec '$PERFTK' unwind -q -i in.data -o $3 --jobs $2"
}
"$PERFTK" unwind -q -i in.data -o free.data
# The least limit, in steps of 8 MB, that --jobs 1 writes the bytes of a run
# without a limit under. (Just under it, an allocation libdw cannot make
# may end a stack's unwinding early: such a run is passed over here.)
limit=
for ((kb = 16384; kb <= 1048576; kb += 8192)); do
  unwind_under "$kb" 1 one.data
  if [ "$rc" = 0 ] && cmp -s one.data free.data; then limit=$kb && break; fi
  # Under too little: a clear error (out of memory, or the input not mapped).
  [ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "unwind --jobs 1 under $kb KB: exit $rc ($(last_error))"
done
[ -n "$limit" ] || fail "unwind --jobs 1 needs more than 1 GB of address space"
echo "unwind --jobs 1 runs under $limit KB"
# With room for a second lane (its thread's 8 MB stack, its own libdw
# state of the modules: 24 MB was once not enough) and more: glibc's
# attempts at a heap fail or not by where the limit falls, so several are
# tried.
for ((extra = 40960; extra <= 90112; extra += 8192)); do
  unwind_under $((limit + extra)) 2 two.data
  check "unwind --jobs 2 runs under $((limit + extra)) KB (rc $rc: $(last_error))" test "$rc" = 0
  check "unwind --jobs 2 there writes the bytes of a run without a limit" cmp -s free.data two.data
done
checks_summary
