#!/usr/bin/env python3
"""Rewrites a pipe-layout perf.data (native little-endian, from `perf record
-o -`) so that the MMAP2 of each jit-<pid>.dump names it with PREFIX put in
front of its path: a recording whose jitdump path was chosen to lead
elsewhere, e.g. PREFIX '/..' ('/../tmp/x/jit-1.dump' is the same file).

  prefix_jitdump_mmap.py IN OUT PREFIX
Prints how many MMAP2 records it rewrote; exit 1 when none.
"""
import re
import struct
import sys

MMAP2 = 10
FIXED = 8 + 8 + 24 + 24 + 8  # header, pid/tid, addr/len/pgoff, maj..ino_gen, prot/flags
DUMP = re.compile(rb'/jit-\d+\.dump$')


def main():
    src, dst, prefix = sys.argv[1], sys.argv[2], sys.argv[3].encode()
    with open(src, "rb") as f:
        data = f.read()
    if data[:8] != b"PERFILE2" or struct.unpack_from("<Q", data, 8)[0] != 16:
        sys.exit(f"{src}: not a pipe-layout perf.data")
    out, at, rewritten = [data[:16]], 16, 0
    while at + 8 <= len(data):
        kind, misc, size = struct.unpack_from("<IHH", data, at)
        if size < 8 or at + size > len(data):
            sys.exit(f"{src}: record at {at:#x} has size {size}")
        record = data[at:at + size]
        if kind == MMAP2 and size > FIXED:
            end = record.index(b"\0", FIXED)
            name = record[FIXED:end]
            if DUMP.search(name):
                padded = (end - FIXED + 8) // 8 * 8  # the name, its NUL, padding to 8
                trailer = record[FIXED + padded:]
                new_name = prefix + name
                new_name += b"\0" * (8 - len(new_name) % 8)
                body = record[8:FIXED] + new_name + trailer
                record = struct.pack("<IHH", kind, misc, 8 + len(body)) + body
                rewritten += 1
        out.append(record)
        at += size
    with open(dst, "wb") as f:
        f.write(b"".join(out))
    print(rewritten)
    if rewritten == 0:
        sys.exit(1)


if __name__ == "__main__":
    main()
