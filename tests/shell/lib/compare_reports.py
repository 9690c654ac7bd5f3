#!/usr/bin/env python3
"""Compares two `perf report --stdio` outputs of the same profile.

Usage: compare_reports.py EXPECTED ACTUAL

Each report is cut into entries: a line that starts with a percentage, and
the call-graph lines under it. The reports match when
  - their entries are the same, as multisets, once raw addresses
    (0x and hex digits: addresses perf could not symbolize; short ones are
    garbage frames of unwinds without frame pointers) are masked: everything perf symbolized is identical, and every unknown
    address still has its own entry (distinct unknown pages stay distinct);
  - the entries' percentages come in the same order, so only entries with
    equal percentages may trade places (perf breaks such ties by address).
Exits 1 with the first differences when they do not match.
"""
import collections
import re
import sys

ENTRY = re.compile(r"^\s*\d+\.\d+%")
ADDRESS = re.compile(r"0x[0-9a-f]+")


def entries(path):
    blocks, current = [], []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            if ENTRY.match(line) and current:
                blocks.append(current)
                current = []
            current.append(line)
    if current:
        blocks.append(current)
    return blocks


def main():
    expected, actual = entries(sys.argv[1]), entries(sys.argv[2])
    if not expected:
        print(f"{sys.argv[1]}: no report entries", file=sys.stderr)
        return 1
    mask = lambda block: "\n".join(ADDRESS.sub("ADDR", line) for line in block)
    want = collections.Counter(mask(b) for b in expected)
    got = collections.Counter(mask(b) for b in actual)
    ok = True
    if want != got:
        ok = False
        for block in list((want - got).elements())[:3]:
            print("only in the input:\n" + block, file=sys.stderr)
        for block in list((got - want).elements())[:3]:
            print("only in the output:\n" + block, file=sys.stderr)
    percent = lambda blocks: [ENTRY.match(b[0]).group(0).strip() for b in blocks]
    if percent(expected) != percent(actual):
        ok = False
        print("the entries' percentages come in another order", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
