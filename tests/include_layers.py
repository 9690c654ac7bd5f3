#!/usr/bin/env python3
"""Fails when an #include in src/ crosses the layer picture the wrong way.

The picture (docs/architecture.md, as the code has it): each room may include its own
headers and those of the rooms below it, never one above or beside it.

    doc  ->  cli  ->  aslr, build_ids, jit, cs_etm, unwind, uprobe, pipeline, profile, elf,
                      perf, machine, base
    aslr, build_ids  ->  pipeline, elf, machine, perf, base
    jit, unwind  ->  pipeline, elf, machine, perf, base
    cs_etm  ->  pipeline, profile, elf, machine, perf, base
    pipeline ->  machine, perf, base
    machine ->  perf, base
    perf    ->  base
    uprobe  ->  elf, base
    elf     ->  base
    profile ->  base
    base    ->  (nothing)

The build enforces the same picture (src/CMakeLists.txt): a room's headers
are reachable only through its target, so each perftk_<room> target may link
only the rooms below it; this script checks those links too.

Usage: include_layers.py SRC_DIR. Prints every crossing and exits 1 if any,
else prints how many includes and links it checked and exits 0.
"""
import pathlib
import re
import sys

BELOW = {
    "base": set(),
    "perf": {"base"},
    "elf": {"base"},
    "uprobe": {"elf", "base"},
    "profile": {"base"},
    "machine": {"perf", "base"},
    "pipeline": {"machine", "perf", "base"},
    "aslr": {"pipeline", "elf", "machine", "perf", "base"},
    "build_ids": {"pipeline", "elf", "machine", "perf", "base"},
    "jit": {"pipeline", "elf", "machine", "perf", "base"},
    "cs_etm": {"pipeline", "profile", "elf", "machine", "perf", "base"},
    "unwind": {"pipeline", "elf", "machine", "perf", "base"},
    "cli": {"aslr", "build_ids", "pipeline", "jit", "cs_etm", "unwind", "uprobe", "profile", "elf",
            "machine", "perf", "base"},
    "doc": {"cli"},
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/[^"]+"', re.MULTILINE)
# perftk_library(perftk_<name> <room> deps...) and the cli's
# target_link_libraries(perftk_cli PUBLIC deps...).
LIBRARY = re.compile(r"perftk_library\(\s*perftk_\w+\s+(\w+)\s+([^)]*)\)")
CLI_LINKS = re.compile(r"target_link_libraries\(\s*perftk_cli\s+PUBLIC\s+([^)]*)\)")
ROOM_TARGET = re.compile(r"\bperftk_([a-z_]+)\b")


def link_crossings(cmake):
    """The links of src/CMakeLists.txt that cross the picture, and how many links it read."""
    text = cmake.read_text(encoding="utf-8")
    links = [(m.group(1), m.group(2)) for m in LIBRARY.finditer(text)]
    links += [("cli", m.group(1)) for m in CLI_LINKS.finditer(text)]
    crossings, checked = [], 0
    for room, deps in links:
        for target in ROOM_TARGET.findall(deps):
            if target == "abi":
                continue  # include/perftk, the kernel ABI: not a room
            checked += 1
            if room not in BELOW or (target != room and target not in BELOW[room]):
                crossings.append(f"{cmake}: perftk_{room} links perftk_{target}")
    if not links:
        crossings.append(f"{cmake}: no perftk_library() calls found")
    return crossings, checked


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
    link_problems, links = link_crossings(src / "CMakeLists.txt")
    crossings += link_problems
    for crossing in crossings:
        print(crossing)
    if crossings:
        print(f"{len(crossings)} includes or links cross the layer picture")
        return 1
    print(f"{checked} includes and {links} links between rooms, all down the layer picture")
    return 0


if __name__ == "__main__":
    sys.exit(main())
