#!/usr/bin/env python3
"""Fails when code outside the format rooms reads or writes bytes at a fixed
offset: src/perf owns every perf.data layout (views and encoders), and a tool
that needs a field asks a view, an encoder or a named offset there.

The rule, for every .h/.cc under src/ except the rooms and files that own a
byte format:
    src/perf/          perf.data
    src/base/          the byte helpers themselves (Load, Store, ByteCursor)
    src/elf/           ELF
    src/uprobe/usdt_notes.*  the .note.stapsdt (USDT) note
    src/jit/jitdump.*  the jitdump format
a line may not hold
  1. Load<T>(...) or Store<T>(...) whose address argument contains an
     integer literal (`Load<uint64_t>(bytes.data() + 16)`,
     `Store<uint64_t>(p + 24 + 8 * i, v)`); an offset named in src/perf
     (`bytes.data() + MmapRecord::kStartOffset`) or a cursor (`p`,
     `data() + pos`) is fine;
  2. `.data() + <integer literal>`: a pointer to a fixed offset, as a
     memcpy/memset into a record or a reinterpret_cast of a field takes;
  3. `.subspan(<integer literal>`: a fixed-offset slice of the bytes;
  4. a call of base's Append/AppendBytes (bytes.h): a layout being encoded
     field after field, which is an encoder's job (perf/record_encoders.h,
     perf/features.h); member calls (`x.Append(`) and absl::StrAppend are
     other functions and not matched;
  5. a constant of the kernel's perf ABI defined here (`constexpr ...
     PERF_X =`): those live in include/perftk/perf_abi.h;
  6. an attr bit by number: a shift of an integer literal (`1ULL << 18`)
     on a line about attr flags, sample_type or branch_sample_type, where
     perf_abi.h names the bit (kAttrFlag*, PERF_SAMPLE_*);
  7. `+ <integer literal>` beside a name ending in offset (`offset + 8`,
     `16 + kSomethingOffset`): a field found by counting bytes.
Comments are ignored.

Usage: raw_offsets.py SRC_DIR. Prints every offending line and exits 1 if
any, else prints how many files it checked and exits 0.
"""
import pathlib
import re
import sys

FORMAT_OWNERS = ("perf/", "base/", "elf/", "uprobe/usdt_notes.", "jit/jitdump.")
LITERAL = re.compile(r"\b(0[xX][0-9a-fA-F]+|\d+)[uUlL]*\b")
LOAD_STORE = re.compile(r"\b(?:Load|Store)<[^<>;]*>\(")
FIXED_POINTER = re.compile(r"\.data\(\)\s*\+\s*(0[xX][0-9a-fA-F]+|\d+)\b")
FIXED_SLICE = re.compile(r"\.subspan\(\s*(0[xX][0-9a-fA-F]+|\d+)\b")
BYTE_APPEND = re.compile(r"(?<![.\w>:])(?:Append|AppendBytes)(?:<[^<>;]*>)?\(")
ABI_CONSTANT = re.compile(r"\bconstexpr\b[^=;]*\bPERF_[A-Z0-9_]+\s*=")
LITERAL_SHIFT = re.compile(r"\b(?:0[xX][0-9a-fA-F]+|\d+)[uUlL]*\s*<<\s*(?:0[xX][0-9a-fA-F]+|\d+)\b")
ATTR_WORDS = re.compile(r"attr|[Ff]lags|sample_type|SampleType|branch_sample|BranchSample")
OFFSET_ARITHMETIC = re.compile(
    r"\w*[Oo]ffset\w*\s*\+\s*(?:0[xX][0-9a-fA-F]+|\d+)\b"
    r"|\b(?:0[xX][0-9a-fA-F]+|\d+)[uUlL]*\s*\+\s*\w*[Oo]ffset\w*")


def first_argument(text, start):
    """The first argument of the call whose '(' is just before `start`."""
    depth = 0
    for i in range(start, len(text)):
        c = text[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                return text[start:i]
            depth -= 1
        elif c == "," and depth == 0:
            return text[start:i]
    return text[start:]


def offenses(line):
    code = line.split("//", 1)[0]
    found = []
    for match in LOAD_STORE.finditer(code):
        argument = first_argument(code, match.end())
        if LITERAL.search(argument):
            found.append(f"fixed offset in {match.group(0)}{argument})")
    for pattern, what in ((FIXED_POINTER, "pointer to a fixed offset"),
                          (FIXED_SLICE, "fixed-offset slice"),
                          (BYTE_APPEND, "bytes encoded by hand"),
                          (ABI_CONSTANT, "perf ABI constant outside perf_abi.h"),
                          (OFFSET_ARITHMETIC, "offset counted in bytes")):
        for match in pattern.finditer(code):
            found.append(f"{what}: {match.group(0)}")
    if ATTR_WORDS.search(code):
        for match in LITERAL_SHIFT.finditer(code):
            found.append(f"attr bit by number: {match.group(0)}")
    return found


def main():
    src = pathlib.Path(sys.argv[1])
    problems, checked = [], 0
    for path in sorted(src.rglob("*")):
        if path.suffix not in (".h", ".cc"):
            continue
        relative = path.relative_to(src).as_posix()
        if relative.startswith(FORMAT_OWNERS):
            continue
        checked += 1
        lines = path.read_text(encoding="utf-8").splitlines()
        for number, line in enumerate(lines, 1):
            for what in offenses(line):
                problems.append(f"{path}:{number}: {what}")
    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} raw byte offsets outside the format rooms: "
              "use a view, an encoder or a named offset of src/perf")
        return 1
    print(f"{checked} files outside the format rooms, no raw byte offsets")
    return 0


if __name__ == "__main__":
    sys.exit(main())
