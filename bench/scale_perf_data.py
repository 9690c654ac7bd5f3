#!/usr/bin/env python3
"""Makes a file-layout perf.data N times larger by repeating its data section.

Usage: scale_perf_data.py IN OUT N

The result is a valid recording (same attrs and features, the records N
times over) for measuring how time and memory grow with input size. It is
benchmark input only: timestamps repeat, so it is no real profile.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts", "lib"))
from perf_data_file import PerfDataFile  # noqa: E402


def main() -> int:
    src, dst, times = sys.argv[1], sys.argv[2], int(sys.argv[3])
    recording = PerfDataFile.read(src)
    recording.write(dst, recording.data * times)
    return 0


if __name__ == "__main__":
    sys.exit(main())
