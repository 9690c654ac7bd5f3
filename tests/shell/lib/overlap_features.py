#!/usr/bin/env python3
"""Makes a memory bomb of a file-layout perf.data: all 256 feature bits set,
every feature section covering the whole file (bytes shared 256 times),
the file padded to 16 MiB at least (so that a reader's own few MB of RSS
are small beside it).

  overlap_features.py IN OUT
"""
import struct
import sys


def main():
    data = bytearray(open(sys.argv[1], "rb").read())
    if data[:8] != b"PERFILE2":
        sys.exit(f"{sys.argv[1]}: not a file-layout perf.data")
    data_offset, data_size = struct.unpack_from("<QQ", data, 40)
    table = data_offset + data_size
    size = max(len(data), table + 256 * 16, 16 << 20)
    data = data[:table] + bytes(size - table)
    struct.pack_into("<4Q", data, 72, *([(1 << 64) - 1] * 4))
    for bit in range(256):
        struct.pack_into("<QQ", data, table + 16 * bit, 0, size)
    open(sys.argv[2], "wb").write(data)


if __name__ == "__main__":
    main()
