#!/usr/bin/env python3
"""Fails when an #include or a link in src/ crosses the layer picture, or
when docs/architecture.md draws another picture than the build's.

The one source of the picture is the build's target graph: each
perftk_library(perftk_<name> <room> deps...) of src/CMakeLists.txt, and
the cli's target_link_libraries(perftk_cli PUBLIC deps...), say which
rooms a room links. A room may include its own headers and those of the
rooms it reaches through its links, never one above or beside it (the
build enforces the same: a room's headers are reachable only through its
target); the links must have no cycle; and docs/architecture.md's
picture, the fenced block after its "<!-- layers -->" line, is the one
`include_layers.py --picture SRC_DIR` prints from the graph.

Usage: include_layers.py [--picture] SRC_DIR. Prints every crossing and
exits 1 if any, else how many includes and links it checked and exits 0.
"""
import pathlib
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/[^"]+"', re.MULTILINE)
# perftk_library(perftk_<name> <room> deps...) and the cli's
# target_link_libraries(perftk_cli PUBLIC deps...).
LIBRARY = re.compile(r"perftk_library\(\s*(perftk_\w+)\s+(\w+)\s+([^)]*)\)")
CLI_LINKS = re.compile(r"target_link_libraries\(\s*perftk_cli\s+PUBLIC\s+([^)]*)\)")
TARGET = re.compile(r"\bperftk_\w+\b")
NOT_ROOMS = {"perftk_abi"}  # include/perftk, the kernel ABI


def link_graph(cmake):
    """room -> the rooms it links directly, from src/CMakeLists.txt; and problems."""
    text = cmake.read_text(encoding="utf-8")
    entries = [(m.group(1), m.group(2), m.group(3)) for m in LIBRARY.finditer(text)]
    entries += [("perftk_cli", "cli", m.group(1)) for m in CLI_LINKS.finditer(text)]
    room_of = {target: room for target, room, _ in entries}
    graph, problems = {}, []
    for target, room, deps in entries:
        graph.setdefault(room, set())
        for dep in TARGET.findall(deps):
            if dep in NOT_ROOMS:
                continue
            if dep not in room_of:
                problems.append(f"{cmake}: {target} links {dep}, which is no room's target")
                continue
            graph[room].add(room_of[dep])
    if not entries:
        problems.append(f"{cmake}: no perftk_library() calls found")
    return graph, problems


def reachable(graph):
    """room -> every room below it (its links, theirs, ...); raises on a cycle."""
    below, visiting = {}, set()

    def visit(room):
        if room in below:
            return below[room]
        if room in visiting:
            raise ValueError(f"the links of src/CMakeLists.txt make a cycle through {room}")
        visiting.add(room)
        rooms = set()
        for dep in graph.get(room, ()):
            rooms |= {dep} | visit(dep)
        visiting.discard(room)
        below[room] = rooms
        return rooms

    for room in graph:
        visit(room)
    return below


def picture(graph, below):
    """One line a room, top first: "room -> the rooms it links" (its height, then name, orders)."""
    height = {}

    def height_of(room):
        if room not in height:
            height[room] = 1 + max((height_of(d) for d in graph.get(room, ())), default=0)
        return height[room]

    order = sorted(graph, key=lambda r: (-height_of(r), r))
    lines = []
    for room in order:
        deps = sorted(graph[room], key=lambda r: (-height_of(r), r))
        lines.append(f"{room} -> {', '.join(deps) if deps else '(nothing)'}")
    return "\n".join(lines)


def documented_picture(doc):
    """The fenced block after "<!-- layers -->" in `doc`, or None."""
    text = doc.read_text(encoding="utf-8")
    match = re.search(r"<!-- layers -->\s*```\n(.*?)```", text, re.DOTALL)
    return match.group(1).strip() if match else None


def include_crossings(src, below):
    crossings, checked = [], 0
    for path in sorted(src.glob("*/*")):
        if path.suffix not in (".h", ".cc"):
            continue
        room = path.parent.name
        if room not in below:
            crossings.append(f"{path}: room '{room}' has no target in src/CMakeLists.txt")
            continue
        for match in INCLUDE.finditer(path.read_text(encoding="utf-8")):
            target = match.group(1)
            if target not in below:
                continue  # not a room: CLI/, absl/, opencsd/, perftk/ (the ABI)
            checked += 1
            if target != room and target not in below[room]:
                crossings.append(f"{path}: {room} includes {target}/ ({match.group(0).strip()})")
    return crossings, checked


def main(argv):
    only_picture = len(argv) > 1 and argv[1] == "--picture"
    src = pathlib.Path(argv[-1])
    graph, crossings = link_graph(src / "CMakeLists.txt")
    try:
        below = reachable(graph)
    except ValueError as cycle:
        print(cycle)
        return 1
    drawn = picture(graph, below)
    if only_picture:
        print(drawn)
        return 0
    include_problems, checked = include_crossings(src, below)
    crossings += include_problems
    doc = src.parent / "docs" / "architecture.md"
    documented = documented_picture(doc) if doc.exists() else None
    if documented != drawn:
        crossings.append(f"{doc}: the picture after <!-- layers --> is not the build's; "
                         f"`{argv[0]} --picture src` prints it:\n{drawn}")
    for crossing in crossings:
        print(crossing)
    if crossings:
        print(f"{len(crossings)} problems with the layer picture")
        return 1
    links = sum(len(deps) for deps in graph.values())
    print(f"{checked} includes and {links} links between {len(graph)} rooms, all down the "
          f"build's picture, which docs/architecture.md draws")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
