#!/usr/bin/env python3
"""Counts original addresses left in a file.

Usage: leak_scan.py DUMP FILE [FILE_DUMP]

DUMP is `perftk dump` of the original recording: every MMAP/MMAP2 range
(user and kernel), every KSYMBOL range, and the pgoff of mappings whose pgoff
is an address (kernel text, anon, stack) are the original layout. FILE is
scanned for 8-byte little-endian values inside any of those ranges at every
4-byte alignment (raw payloads sit at 4 mod 8). Prints the number of hits
and the first few, with their file offsets; exits 0.

FILE_DUMP, `perftk dump` of FILE, lets the scan skip the fields of FILE that
hold text, sizes or ids, never addresses: file, comm and symbol names,
mapping lengths, pids, device and inode numbers, and the feature sections
made of text and sizes (TEXT_FEATURES). Mappings below 4 GiB are not scanned
for: a program that is not PIE sits there (0x400000...) at a fixed place,
and counts, periods and sizes read as u64 fall there too.
"""
import bisect
import re
import struct
import sys

RANGE = re.compile(r"type=(MMAP2?|KSYMBOL) .*?(?:start|addr)=(0x[0-9a-f]+) len=(0x[0-9a-f]+|\d+)")
PGOFF = re.compile(r"pgoff=(0x[0-9a-f]+)")


def ranges_of(dump):
    ranges = []
    with open(dump, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = RANGE.search(line)
            if not m:
                continue
            start = int(m.group(2), 16)
            length = int(m.group(3), 0)
            # Below 4 GiB sit programs that are not position-independent
            # (gcc's cc1 at 0x400000, 39 MB long, in any system-wide
            # recording made while something compiles): their place is
            # fixed, not randomized, so it is no secret, and sample periods,
            # counts and sizes fall there by the million.
            if length == 0 or start < 0x100000000:
                continue
            ranges.append((start, start + length))
            p = PGOFF.search(line)
            if p and ("//anon" in line or "[kernel" in line or "[stack" in line or "[heap" in line):
                pgoff = int(p.group(1), 16)
                if pgoff >= 0x10000:
                    ranges.append((pgoff, pgoff + length))
    ranges.sort()
    merged = []
    for start, end in ranges:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


RECORD = re.compile(r"^record offset=(\d+) type=(\w+) size=(\d+)")
# Per record type: (first byte, last byte or None for the record end) of
# fields that hold no address: lengths and names.
TEXT_FIELDS = {
    "MMAP": [(8, 16), (24, 32), (40, None)],  # all but start and pgoff
    "MMAP2": [(8, 16), (24, 32), (40, None)],
    "COMM": [(16, None)],
    "KSYMBOL": [(16, 20), (24, None)],
}


def skipped_spans(dump):
    spans = []
    with open(dump, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = RECORD.match(line)
            if not m or m.group(2) not in TEXT_FIELDS:
                continue
            offset, size = int(m.group(1)), int(m.group(3))
            for begin, end in TEXT_FIELDS[m.group(2)]:
                spans.append((offset + begin, offset + (size if end is None else end)))
    return spans


# Feature sections made of text, sizes and topology only (build ids,
# host name, versions, cpu description, total memory, command line, cpu,
# numa and cache topology, memory blocks, pmu names, sample times, clock
# data, BTF type info). Others (event_desc, tracing_data, ...) are scanned.
TEXT_FEATURES = {2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 14, 16, 20, 21, 22, 26, 29}


def feature_spans(data):
    """Spans of the text-only feature sections of a file-layout perf.data."""
    if len(data) < 104 or data[:8] != b"PERFILE2" or struct.unpack_from("<Q", data, 8)[0] != 104:
        return []
    data_offset, data_size = struct.unpack_from("<QQ", data, 40)
    bitmap = struct.unpack_from("<4Q", data, 72)
    table = data_offset + data_size
    spans = []
    for bit in (b for b in range(256) if bitmap[b // 64] >> (b % 64) & 1):
        offset, size = struct.unpack_from("<QQ", data, table)
        table += 16
        if bit in TEXT_FEATURES:
            spans.append((offset, offset + size))
    return spans


def main():
    ranges = ranges_of(sys.argv[1])
    skip = bytearray()
    if len(sys.argv) > 3:
        with open(sys.argv[2], "rb") as f:
            contents = f.read()
        skip = bytearray(len(contents) + 8)
        for begin, end in skipped_spans(sys.argv[3]) + feature_spans(contents):
            skip[begin:end] = b"\x01" * (end - begin)
    starts = [r[0] for r in ranges]
    with open(sys.argv[2], "rb") as f:
        data = f.read()
    hits = []
    for offset in range(0, len(data) - 7, 4):
        if skip and any(skip[offset:offset + 8]):
            continue
        value = struct.unpack_from("<Q", data, offset)[0]
        i = bisect.bisect_right(starts, value) - 1
        if i >= 0 and value < ranges[i][1]:
            hits.append((offset, value))
    print(len(hits))
    for offset, value in hits[:5]:
        print(f"  offset {offset:#x}: {value:#x}", file=sys.stderr)


if __name__ == "__main__":
    main()
