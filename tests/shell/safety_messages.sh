#!/usr/bin/env bash
# Messages name the file, the offset and the system's reason (issue 15,
# item 9): a short AUX record in cs-etm-decode names its file offset; dump
# into a full device says "No space left on device"; a cs-etm text output
# on a full file system (root: a 256 KB tmpfs) names the path asked for,
# not its temporary.
source "$(dirname "$0")/lib/common.bash"
source "$LIB_DIR/checks.bash"
source "$LIB_DIR/safety.bash"
copy_etm_recording
no_temp_named() { ! err_has '\.tmp\.'; }

# The first AUX record cut to 24 bytes (its layout needs 32), a 40-byte
# FINISHED_ROUND after it so the records that follow stay where they were.
aux_offset=$(python3 - etm/perf_etm.data etm/short_aux.data <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
off, size = struct.unpack_from('<QQ', b, 40)  # the data section
end = off + size
while off < end:
    type_, _, rec_size = struct.unpack_from('<IHH', b, off)
    if type_ == 11:  # PERF_RECORD_AUX
        break
    off += rec_size
assert off < end and rec_size == 64, 'no 64-byte AUX record'
struct.pack_into('<H', b, off + 6, 24)
struct.pack_into('<IHH', b, off + 24, 68, 0, 40)  # PERF_RECORD_FINISHED_ROUND
open(sys.argv[2], 'wb').write(b)
print(off)
PY
)
run "$PERFTK" cs-etm-decode -q -i etm/short_aux.data --symfs etm -o out.data
check "short AUX record: exit 1 (got $rc)" test "$rc" = 1
check "short AUX record: the message names offset $aux_offset ($(last_error))" \
  err_has "offset ($aux_offset|$(printf '0x%x' "$aux_offset"))\b"

[ -w /dev/full ] || skip "no /dev/full"
run "$PERFTK" dump -i etm/perf_etm.data >/dev/full
check "dump > /dev/full: exit 1 (got $rc)" test "$rc" = 1
check "dump > /dev/full: the reason ($(last_error))" err_has "No space left on device"

if [ "$(id -u)" = 0 ]; then
  mount_small_tmpfs small
  run "$PERFTK" cs-etm-decode -q -i etm/perf_etm.data --symfs etm --itrace=i1l64 --format=script \
    -o small/out.txt
  check "cs-etm script on a full disk: exit 1 (got $rc)" test "$rc" = 1
  check "cs-etm script on a full disk: the message names small/out.txt ($(last_error))" \
    err_has 'small/out\.txt([^.]|$)'
  check "cs-etm script on a full disk: the message names no temporary file" no_temp_named
  check "cs-etm script on a full disk: the reason" err_has "No space left on device"
else
  echo "note: not root, the full file system is not checked"
fi
checks_summary
