#!/usr/bin/env python3
"""Makes a recording with a block of trace that never commits, from a real
one: the recording, then one more block (an AUX record and an AUXTRACE on
the first CPU that has trace metadata) of MB megabytes: an A-sync, a trace
info, an address with context, then exact-match address packets (0x90) and
no atom. A decoder that keeps every element waiting for a commit would hold
them all (tests/shell/safety_trace_never_commits.sh).

Usage: never_committing_trace.py IN OUT MB

The block is formatted (CoreSight frames of trace id 0x10 + 2 x cpu, the
simpleperf recordings' ids) when the recording's last AUX record is, raw
otherwise. Input as tests/cs_etm/replay_etm_trace.py takes it.
"""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "lib"))
from perf_data_file import PerfDataFile  # noqa: E402

AUX_FLAG_RAW = 0x100


def stream(size: int) -> bytes:
    start = bytes(11) + b"\x80"  # A-sync
    start += b"\x01\x00"  # trace info, no sections
    start += b"\x85" + struct.pack("<Q", 0x400000) + b"\x00"  # address with context
    return start + b"\x90" * (size - len(start))


def frames(data: bytes, trace_id: int) -> bytes:
    """14 bytes of one id a frame: its id at byte 0, data at 1-14, the
    even bytes' bit 0 in byte 15."""
    out = bytearray()
    for at in range(0, len(data) - len(data) % 14, 14):
        chunk = data[at:at + 14]
        frame = bytearray(16)
        frame[0] = (trace_id << 1) | 1
        frame[1] = chunk[0]
        flags = 0
        for k in range(1, 8):
            byte = chunk[2 * k - 1]
            frame[2 * k] = byte & 0xFE
            flags |= (byte & 1) << k
            if 2 * k + 1 < 15:
                frame[2 * k + 1] = chunk[2 * k]
        frame[15] = flags
        out += frame
    return bytes(out)


def main() -> int:
    src, dst, megabytes = sys.argv[1], sys.argv[2], int(sys.argv[3])
    recording = PerfDataFile.read(src)
    cpus, aux, (header, _trace) = recording.etm_trace()
    cpu = cpus[0]
    raw = struct.unpack_from("<Q", aux, 24)[0] & AUX_FLAG_RAW
    size = megabytes << 20
    payload = stream(size) if raw else frames(stream(size // 16 * 14), 0x10 + 2 * cpu)
    record = bytearray(aux)
    struct.pack_into("<QQ", record, 8, 0, len(payload))  # aux_offset, aux_size
    struct.pack_into("<I", record, len(record) - 8, cpu)
    block = bytearray(header)
    struct.pack_into("<QQ", block, 8, len(payload), 0)  # size, offset
    struct.pack_into("<I", block, 40, cpu)
    recording.write(dst, recording.data + bytes(record) + bytes(block) + payload)
    return 0


if __name__ == "__main__":
    sys.exit(main())
