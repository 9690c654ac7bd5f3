#!/usr/bin/env python3
"""Makes a larger CoreSight recording from a real one, for --jobs tests and
timing: the recording, then ROUNDS more blocks, each an AUX record and an
AUXTRACE whose trace is the recording's last AUXTRACE trace REPEAT times over,
round r on the r-th CPU that has trace metadata (round-robin).

Usage: replay_etm_trace.py IN OUT ROUNDS REPEAT

Input: a little-endian file-layout perf.data whose events have sample_id_all
with CPU last in the trailer (the simpleperf recordings). Benchmark and test
input only: times repeat, and repeated trace is decoded as it comes (the
decoder resynchronizes at each copy's start).
"""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "lib"))
from perf_data_file import PerfDataFile  # noqa: E402


def main() -> int:
    src, dst = sys.argv[1], sys.argv[2]
    rounds, repeat = int(sys.argv[3]), int(sys.argv[4])
    recording = PerfDataFile.read(src)
    cpus, aux, trace = recording.etm_trace()

    # Raw trace: only what the last AUX record announces (the buffer is
    # padded, and a raw stream cannot resynchronize through the padding).
    aux_size, aux_flags = struct.unpack_from("<QQ", aux, 16)
    raw = aux_flags & 0x100
    one = trace[1][:aux_size] if raw and 0 < aux_size <= len(trace[1]) else trace[1]
    payload = one * repeat
    extra = bytearray()
    for r in range(rounds):
        cpu = cpus[r % len(cpus)]
        record = bytearray(aux)
        struct.pack_into("<QQ", record, 8, 0, len(payload))  # aux_offset, aux_size
        struct.pack_into("<I", record, len(record) - 8, cpu)
        extra += record
        header = bytearray(trace[0])
        struct.pack_into("<QQ", header, 8, len(payload), 0)  # size, offset
        struct.pack_into("<I", header, 40, cpu)
        extra += header + payload

    recording.write(dst, recording.data + extra)
    return 0


if __name__ == "__main__":
    sys.exit(main())
