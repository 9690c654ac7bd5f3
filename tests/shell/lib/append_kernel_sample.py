#!/usr/bin/env python3
"""Appends a kernel MMAP record and one kernel sample inside it to a
pipe-layout perf.data (native little-endian) made by `perf record -o -`:
a recording that names a kernel module of the recorder's choosing.

  append_kernel_sample.py FILE NAME    # e.g. FILE '[../../tmp/x]'
  append_kernel_sample.py FILE NAME user|user-data
With `user`, a user-space MMAP of NAME (pid 4242) and no sample, as
--buildid-all looks at every mapping; `user-data` marks it a data mapping
(PERF_RECORD_MISC_MMAP_DATA).
The sample's fields follow the first HEADER_ATTR's sample_type; only IP,
TID, TIME, ADDR, ID, STREAM_ID, CPU, PERIOD and IDENTIFIER are written
(exit 2 for any other field).
"""
import struct
import sys

HEADER_ATTR, MMAP, SAMPLE = 64, 1, 9
MISC_KERNEL = 1
START, LENGTH = 0xFFFFFFFFC0000000, 0x10000
IP, TID, TIME, ADDR, ID, CPU, PERIOD, STREAM_ID, IDENTIFIER = (
    1 << 0, 1 << 1, 1 << 2, 1 << 3, 1 << 6, 1 << 7, 1 << 8, 1 << 9, 1 << 16)
KNOWN = IP | TID | TIME | ADDR | ID | CPU | PERIOD | STREAM_ID | IDENTIFIER


def first_attr(data):
    if data[:8] != b"PERFILE2" or struct.unpack_from("<Q", data, 8)[0] != 16:
        sys.exit("not a pipe-layout perf.data")
    at = 16
    while at + 8 <= len(data):
        kind, _, size = struct.unpack_from("<IHH", data, at)
        if size < 8:
            sys.exit(f"record at {at:#x} has size {size}")
        if kind == HEADER_ATTR:
            sample_type, = struct.unpack_from("<Q", data, at + 8 + 24)
            flags, = struct.unpack_from("<Q", data, at + 8 + 40)
            attr_size, = struct.unpack_from("<I", data, at + 8 + 4)
            ids = data[at + 8 + attr_size:at + size]
            first_id = struct.unpack_from("<Q", ids)[0] if len(ids) >= 8 else 0
            return sample_type, bool(flags >> 18 & 1), first_id
        at += size
    sys.exit("no HEADER_ATTR record")


MISC_USER, MISC_MMAP_DATA = 2, 1 << 13


def record(kind, body, misc=MISC_KERNEL):
    return struct.pack("<IHH", kind, misc, 8 + len(body)) + body


def main():
    path, name = sys.argv[1], sys.argv[2].encode()
    with open(path, "rb") as f:
        data = f.read()
    sample_type, id_all, event_id = first_attr(data)
    if sample_type & ~KNOWN:
        print(f"sample_type {sample_type:#x} has fields this script does not write",
              file=sys.stderr)
        sys.exit(2)
    mode = sys.argv[3] if len(sys.argv) > 3 else "kernel"
    pid, tid, time, cpu = 0xFFFFFFFF, 0, 1 << 62, 0
    if mode != "kernel":
        pid = tid = 4242
    trailer = b""
    if id_all:
        if sample_type & TID:
            trailer += struct.pack("<II", pid, tid)
        if sample_type & TIME:
            trailer += struct.pack("<Q", time)
        if sample_type & ID:
            trailer += struct.pack("<Q", event_id)
        if sample_type & STREAM_ID:
            trailer += struct.pack("<Q", event_id)
        if sample_type & CPU:
            trailer += struct.pack("<II", cpu, 0)
        if sample_type & IDENTIFIER:
            trailer += struct.pack("<Q", event_id)
    filename = name + b"\0" * (8 - len(name) % 8)
    if mode != "kernel":
        misc = MISC_USER | (MISC_MMAP_DATA if mode == "user-data" else 0)
        body = struct.pack("<IIQQQ", pid, tid, 0x400000, LENGTH, 0) + filename + trailer
        with open(path, "ab") as f:
            f.write(record(MMAP, body, misc))
        return
    mmap = record(MMAP, struct.pack("<IIQQQ", pid, tid, START, LENGTH, 0) + filename + trailer)
    body = b""
    if sample_type & IDENTIFIER:
        body += struct.pack("<Q", event_id)
    if sample_type & IP:
        body += struct.pack("<Q", START + 0x100)
    if sample_type & TID:
        body += struct.pack("<II", pid, tid)
    if sample_type & TIME:
        body += struct.pack("<Q", time)
    if sample_type & ADDR:
        body += struct.pack("<Q", 0)
    if sample_type & ID:
        body += struct.pack("<Q", event_id)
    if sample_type & STREAM_ID:
        body += struct.pack("<Q", event_id)
    if sample_type & CPU:
        body += struct.pack("<II", cpu, 0)
    if sample_type & PERIOD:
        body += struct.pack("<Q", 1)
    with open(path, "ab") as f:
        f.write(mmap + record(SAMPLE, body))


if __name__ == "__main__":
    main()
