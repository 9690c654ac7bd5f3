#!/usr/bin/env python3
"""raw_offsets.py can fail: each of its rules finds its line in a made-up
room, and lines that merely look alike pass; a format room is not checked."""
import pathlib
import subprocess
import sys
import tempfile

LINT = pathlib.Path(__file__).with_name("raw_offsets.py")
OFFENDING = {
    "fixed offset in Load": "uint64_t v = Load<uint64_t>(bytes.data() + 16);",
    "pointer to a fixed offset": "std::memcpy(out.data() + 8, &v, 8);",
    "fixed-offset slice": "Bytes tail = bytes.subspan(24);",
    "bytes encoded by hand": "Append<uint32_t>(out, size);",
    "perf ABI constant outside perf_abi.h": "inline constexpr uint32_t PERF_TYPE_X = 9;",
    "attr bit by number": "attr.flags |= 1ULL << 22;",
    "offset counted in bytes": "size_t at = record_offset + 8;",
}
PASSING = [
    "uint64_t v = Load<uint64_t>(bytes.data() + MmapRecord::kStartOffset);",
    "static constexpr size_t kMaxLine = 1 << 16;",
    "uint64_t cpu = priv[pos + 1];",
    "absl::StrAppend(&text, name);",
    "// attr.flags |= 1ULL << 22; (a comment)",
]


def run(tree):
    return subprocess.run([sys.executable, str(LINT), str(tree)], capture_output=True, text=True)


def main():
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        src = pathlib.Path(tmp) / "src"
        (src / "room").mkdir(parents=True)
        (src / "perf").mkdir()
        for i, (what, line) in enumerate(OFFENDING.items()):
            (src / "room" / f"bad{i}.cc").write_text(line + "\n")
            (src / "perf" / f"owner{i}.cc").write_text(line + "\n")
        (src / "room" / "good.cc").write_text("\n".join(PASSING) + "\n")
        result = run(src)
        if result.returncode != 1:
            print(f"FAIL: exit {result.returncode} on offending lines")
            failures += 1
        for i, what in enumerate(OFFENDING):
            hit = [l for l in result.stdout.splitlines() if f"bad{i}.cc" in l]
            if not any(what in l for l in hit):
                print(f"FAIL: rule '{what}' did not find: {OFFENDING[what]}")
                failures += 1
        if "good.cc" in result.stdout or "owner" in result.stdout:
            print(f"FAIL: flagged what it must not:\n{result.stdout}")
            failures += 1
        for bad in (src / "room").glob("bad*.cc"):
            bad.unlink()
        result = run(src)
        if result.returncode != 0:
            print(f"FAIL: exit {result.returncode} on clean lines:\n{result.stdout}")
            failures += 1
    print(f"{len(OFFENDING)} rules, {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
