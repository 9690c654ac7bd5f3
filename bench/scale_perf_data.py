#!/usr/bin/env python3
"""Makes a file-layout perf.data N times larger by repeating its data section.

Usage: scale_perf_data.py IN OUT N

The result is a valid recording (same attrs and features, the records N
times over) for measuring how time and memory grow with input size. It is
benchmark input only: timestamps repeat, so it is no real profile.
"""
import struct
import sys


def main() -> int:
    src, dst, times = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with open(src, "rb") as f:
        blob = f.read()
    magic, size, attr_size = struct.unpack_from("<8sQQ", blob, 0)
    if magic != b"PERFILE2" or size != 104:
        sys.exit(f"{src}: not a little-endian file-layout perf.data")
    attrs_off, attrs_size, data_off, data_size = struct.unpack_from("<4Q", blob, 24)
    features = struct.unpack_from("<4Q", blob, 72)
    data = blob[data_off:data_off + data_size]
    table_off = data_off + data_size
    nr_features = sum(bin(word).count("1") for word in features)
    table = blob[table_off:table_off + 16 * nr_features]

    grow = data_size * (times - 1)
    out = bytearray(blob[:data_off])
    out += data * times
    # The feature table follows the data; every section offset past it moves.
    for i in range(nr_features):
        off, sec_size = struct.unpack_from("<QQ", table, 16 * i)
        out += struct.pack("<QQ", off + grow if off >= table_off else off, sec_size)
    out += blob[table_off + 16 * nr_features:]
    struct.pack_into("<Q", out, 48, data_size * times)
    if attrs_off >= table_off:
        struct.pack_into("<Q", out, 24, attrs_off + grow)
    # Id arrays stored after the data move too.
    for i in range(attrs_size // attr_size):
        at = (attrs_off + grow if attrs_off >= table_off else attrs_off) + i * attr_size
        ids_off = struct.unpack_from("<Q", out, at + attr_size - 16)[0]
        if ids_off >= table_off:
            struct.pack_into("<Q", out, at + attr_size - 16, ids_off + grow)
    with open(dst, "wb") as f:
        f.write(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
