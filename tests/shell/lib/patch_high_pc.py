#!/usr/bin/env python3
"""Makes the DWARF of an ELF64 little-endian binary claim that a function's
code runs 256 GiB past its end: the DW_AT_high_pc (a size, DW_FORM_data8)
that follows its DW_AT_low_pc in .debug_info gets 0x40 in its fifth byte
(0x6c -> 0x400000006c). In place; one byte, as a damaged or hostile binary
would have it.

  patch_high_pc.py FILE ADDRESS    # ADDRESS: the function's, hex
Prints the patched byte's file offset in hex; exit 1 when no low_pc of
ADDRESS is followed by a plausible size.
"""
import struct
import sys


def section(data, wanted):
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    def header(i):
        return struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize)
    names_offset = header(shstrndx)[4]
    for i in range(shnum):
        name, _, _, _, offset, size = header(i)
        end = data.index(b"\0", names_offset + name)
        if data[names_offset + name:end] == wanted:
            return offset, size
    sys.exit(f"no section {wanted.decode()}")


def main():
    path, address = sys.argv[1], int(sys.argv[2], 16)
    with open(path, "rb") as f:
        data = bytearray(f.read())
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        sys.exit(f"{path}: not a little-endian ELF64 file")
    offset, size = section(data, b".debug_info")
    info = bytes(data[offset:offset + size])
    needle = struct.pack("<Q", address)
    at = info.find(needle)
    while at >= 0:
        high, = struct.unpack_from("<Q", info, at + 8)
        if 0 < high < 1 << 20:
            data[offset + at + 8 + 4] = 0x40
            with open(path, "r+b") as f:
                f.seek(offset + at + 8 + 4)
                f.write(b"\x40")
            print(hex(offset + at + 8 + 4))
            return
        at = info.find(needle, at + 1)
    sys.exit(f"{path}: no DW_AT_low_pc {address:#x} followed by a size")


if __name__ == "__main__":
    main()
