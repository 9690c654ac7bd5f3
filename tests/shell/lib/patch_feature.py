#!/usr/bin/env python3
"""Overwrites bytes of a feature section of a file-layout perf.data (native
little-endian), in place: a malformed section in an otherwise good file.

  patch_feature.py FILE BIT AT HEX    # HEX written at byte AT of the section
  patch_feature.py FILE BIT AT zero   # zeros from byte AT to the section's end
"""
import struct
import sys


def main():
    path, bit, at, what = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    with open(path, "r+b") as f:
        head = f.read(104)
        if head[:8] != b"PERFILE2":
            sys.exit(f"{path}: not a file-layout perf.data")
        data_offset, data_size = struct.unpack_from("<QQ", head, 40)
        bitmap = struct.unpack_from("<4Q", head, 72)
        if not (bitmap[bit // 64] >> (bit % 64)) & 1:
            sys.exit(f"{path}: feature bit {bit} is not set")
        index = sum(bin(bitmap[b // 64] >> (b % 64) & 1).count("1") for b in range(bit))
        f.seek(data_offset + data_size + 16 * index)
        offset, size = struct.unpack("<QQ", f.read(16))
        data = bytes(size - at) if what == "zero" else bytes.fromhex(what)
        if at + len(data) > size:
            sys.exit(f"{path}: the patch runs past the section's {size} bytes")
        f.seek(offset + at)
        f.write(data)


if __name__ == "__main__":
    main()
