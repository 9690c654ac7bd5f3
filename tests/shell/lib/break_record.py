#!/usr/bin/env python3
"""Sets the header size of the Nth record of a type in a file-layout
perf.data (native little-endian), in place: a malformed record in an
otherwise good recording.

  break_record.py FILE TYPE N SIZE    # e.g. FILE 9 1000 15: the 1000th SAMPLE
Prints the record's file offset in hex.
"""
import struct
import sys


def main():
    path, rtype, nth, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    with open(path, "r+b") as f:
        head = f.read(104)
        if head[:8] != b"PERFILE2":
            sys.exit(f"{path}: not a file-layout perf.data")
        data_offset, data_size = struct.unpack_from("<QQ", head, 40)
        offset, seen = data_offset, 0
        while offset + 8 <= data_offset + data_size:
            f.seek(offset)
            kind, misc, length = struct.unpack("<IHH", f.read(8))
            if length < 8:
                sys.exit(f"{path}: record at {offset:#x} has size {length}")
            if kind == rtype:
                seen += 1
                if seen == nth:
                    f.seek(offset + 6)
                    f.write(struct.pack("<H", size))
                    print(f"{offset:#x}")
                    return
            offset += length
        sys.exit(f"{path}: only {seen} records of type {rtype}")


if __name__ == "__main__":
    main()
