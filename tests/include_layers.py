#!/usr/bin/env python3
"""Fails when an #include in src/ crosses the layer picture the wrong way.

The picture (DESIGN.md, as the code has it): each room may include its own
headers and those of the rooms below it, never one above or beside it.

    doc  ->  cli  ->  inject, jit, cs_etm, unwind, profile, elf, perf, machine, base
    jit, unwind  ->  inject, elf, machine, perf, base
    cs_etm  ->  inject, profile, elf, machine, perf, base
    inject  ->  machine, perf, base
    machine ->  perf, base
    perf    ->  base
    elf     ->  base
    profile ->  base
    base    ->  (nothing)

Usage: include_layers.py SRC_DIR. Prints every crossing and exits 1 if any,
else prints how many includes it checked and exits 0.
"""
import pathlib
import re
import sys

BELOW = {
    "base": set(),
    "perf": {"base"},
    "elf": {"base"},
    "profile": {"base"},
    "machine": {"perf", "base"},
    "inject": {"machine", "perf", "base"},
    "jit": {"inject", "elf", "machine", "perf", "base"},
    "cs_etm": {"inject", "profile", "elf", "machine", "perf", "base"},
    "unwind": {"inject", "elf", "machine", "perf", "base"},
    "cli": {"inject", "jit", "cs_etm", "unwind", "profile", "elf", "machine", "perf", "base"},
    "doc": {"cli"},
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/[^"]+"', re.MULTILINE)


def main():
    src = pathlib.Path(sys.argv[1])
    crossings, checked = [], 0
    for path in sorted(src.glob("*/*")):
        if path.suffix not in (".h", ".cc"):
            continue
        room = path.parent.name
        if room not in BELOW:
            crossings.append(f"{path}: room '{room}' is not in the picture")
            continue
        for match in INCLUDE.finditer(path.read_text(encoding="utf-8")):
            target = match.group(1)
            if target not in BELOW:
                continue  # not a room: CLI/, absl/, opencsd/, perftk/ (the ABI)
            checked += 1
            if target != room and target not in BELOW[room]:
                crossings.append(f"{path}: {room} includes {target}/ ({match.group(0).strip()})")
    for crossing in crossings:
        print(crossing)
    if crossings:
        print(f"{len(crossings)} includes cross the layer picture")
        return 1
    print(f"{checked} includes between rooms, all down the layer picture")
    return 0


if __name__ == "__main__":
    sys.exit(main())
