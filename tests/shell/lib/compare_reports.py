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
perf sometimes lists one unknown address as two entries of the same line
(seen on system-wide recordings: a garbage frame address 0x6d6f63707600626d
at 0.03% and again at 0.02%; its remapped copy is one entry at 0.05%).
Before comparing, the single-line entries of an unknown address that are
the same line but for their percentages are taken as one, their
percentages summed (within 0.01% per part, for perf's rounding).
Exits 1 with the first differences when they do not match.
"""
import collections
import re
import sys

ENTRY = re.compile(r"^\s*\d+\.\d+%")
PERCENTS = re.compile(r"^((?:\s*\d+\.\d+%)+)(.*)$")
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


class Entry:
    """One entry: its percentages, the rest of its first line, the call-graph
    lines under it, and how many of perf's entries were taken as this one."""

    def __init__(self, block):
        head = PERCENTS.match(block[0])
        self.percents = [float(p) for p in re.findall(r"\d+\.\d+", head.group(1))]
        self.rest = head.group(2)
        self.graph = block[1:]
        self.parts = 1
        self.twin = None

    def key(self):
        return "\n".join(ADDRESS.sub("ADDR", line) for line in [self.rest] + self.graph)


def merged_unknowns(blocks):
    merged, by_line = [], {}
    for block in blocks:
        entry = Entry(block)
        if entry.graph or "[unknown]" not in entry.rest or not ADDRESS.search(entry.rest):
            merged.append(entry)
            continue
        first = by_line.get(entry.rest)
        if first is None:
            by_line[entry.rest] = entry
            merged.append(entry)
            continue
        first.percents = [a + b for a, b in zip(first.percents, entry.percents)]
        first.parts += 1
    return merged


def same_percents(a, b):
    slack = 0.01 * (max(a.parts, b.parts) - 1) + 1e-6
    return len(a.percents) == len(b.percents) and all(
        abs(x - y) <= slack for x, y in zip(a.percents, b.percents))


def matched(expected, actual):
    """Pairs entries of equal masked text and percentages; returns the
    unmatched ones of each side."""
    pending = collections.defaultdict(list)
    for entry in actual:
        pending[entry.key()].append(entry)
    missing = []
    for entry in expected:
        candidates = pending[entry.key()]
        twin = next((c for c in candidates if same_percents(entry, c)), None)
        if twin is None:
            missing.append(entry)
        else:
            candidates.remove(twin)
            entry.twin, twin.twin = twin, entry
    return missing, [e for group in pending.values() for e in group]


def show(entry):
    head = "  ".join(f"{p:.2f}%" for p in entry.percents)
    return "\n".join([head + entry.rest] + entry.graph)


def main():
    expected, actual = entries(sys.argv[1]), entries(sys.argv[2])
    if not expected:
        print(f"{sys.argv[1]}: no report entries", file=sys.stderr)
        return 1
    expected, actual = merged_unknowns(expected), merged_unknowns(actual)
    ok = True
    only_in, only_out = matched(expected, actual)
    if only_in or only_out:
        ok = False
        for entry in only_in[:3]:
            print("only in the input:\n" + show(entry), file=sys.stderr)
        for entry in only_out[:3]:
            print("only in the output:\n" + show(entry), file=sys.stderr)
    # Ties may trade places; otherwise the order is perf's, by percentage.
    # Merged entries (and their twins) stand where perf put their first part,
    # so they are left out of this check.
    unmerged = lambda side: [e for e in side if e.parts == 1 and (e.twin is None or e.twin.parts == 1)]
    first = lambda side: [e.percents[0] for e in unmerged(side)]
    if ok and first(expected) != first(actual):
        ok = False
        print("the entries' percentages come in another order", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
