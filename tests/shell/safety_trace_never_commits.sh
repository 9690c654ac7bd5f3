#!/usr/bin/env bash
# A recording with a block of trace that never commits (64 MB of address
# packets and no atom: tests/cs_etm/never_committing_trace.py) decodes
# under a 1 GB address space limit, by both decoders, formatted and raw:
# that block is one decode error naming its file offset and decodes to
# nothing, and the profile is the real blocks' profile. Both decoders kept
# every element of such a block waiting for a commit (the fast one past
# 8 GB for 208 MB; OpenCSD died of std::bad_alloc), and the fast decoder
# parsed a raw block whole (80 bytes a packet). Not under ASan, whose
# allocator reserves more address space than any such limit.
source "$(dirname "$0")/lib/common.bash"
source "$LIB_DIR/checks.bash"
ETM=${PERFTK_ETM_DATA_DIR:-$(dirname "$0")/../data/simpleperf-etm}
[ -r "$ETM/perf_etm.data" ] || skip "no simpleperf ETM recordings at $ETM"
command -v python3 >/dev/null || skip "no python3"
asan_build && skip "an ASan build: ulimit -v cannot be applied"
MAKE=$LIB_DIR/../../cs_etm/never_committing_trace.py

for recording in perf_etm perf_with_unformatted_trace; do
  python3 "$MAKE" "$ETM/$recording.data" "$recording.crafted.data" 64
  "$PERFTK" cs-etm-decode -q -i "$ETM/$recording.data" --symfs "$ETM" --format=autofdo \
    -o "$recording.afdo" || fail "decoding $recording.data"
  for decoder in fast opencsd; do
    out=$recording.$decoder
    rc=0
    bash -c "ulimit -v 1000000; exec '$PERFTK' cs-etm-decode -i '$recording.crafted.data' \
      --symfs '$ETM' --format=autofdo --decoder=$decoder -o '$out.afdo'" 2>"$out.err" || rc=$?
    check "$recording, --decoder=$decoder, under 1 GB: exit 0 (got $rc: $(head -c 300 "$out.err"))" \
      test "$rc" = 0
    check "$recording, --decoder=$decoder: one decode error, naming the offset and why" \
      grep -Eq 'warning: 1 trace decode errors; the first: trace at file offset 0x[0-9a-f]+ .* could wait for a commit there' "$out.err"
    check "$recording, --decoder=$decoder: the profile of the real blocks" \
      cmp -s "$recording.afdo" "$out.afdo"
  done
done
checks_summary
