#!/usr/bin/env python3
"""Runs a command RUNS times; prints the medians of its wall time (s), CPU
time (user + system, s) and peak RSS (KB), then its shortest wall time (s):
"wall cpu rss_kb best_wall". The shortest run is the one least slowed by
what shares the host (two vCPUs of a shared machine lose a run's worth of
time now and then): ratios between configurations are given by both.

Usage: measure.py RUNS COMMAND [ARG...] [--next COMMAND [ARG...]]...

With --next, the commands run in turn, round after round (the first, the
second, ..., then the first again), and one line is printed for each, in
their order: a ratio between them is then measured over the same minutes,
not over minutes apart, when a slow hour of the host comes and goes.

Each run is timed from its spawn to its exit, and its CPU time and peak RSS
are the child's own (wait4's rusage), so nothing of a shell, of /usr/bin/time
or of an earlier run is counted: a run of a few milliseconds is measured to
well under a millisecond (`/usr/bin/time -f %e` rounds to 10 ms, and a shell
around it adds 5-10 ms of its own). The command's output goes to /dev/null;
a run that fails stops the measurement with its status.

Before each run, untimed, the dirty pages of earlier runs are written out
(sync): a run is not slowed by the write-back of another's output, whichever
command wrote it (a tool that does not fsync leaves its output for the next
runs to wait behind).
"""
import os
import statistics
import sys
import time


def run_once(argv):
    os.sync()
    with open(os.devnull, "wb") as null:
        start = time.perf_counter()
        pid = os.posix_spawnp(argv[0], argv, os.environ,
                              file_actions=[(os.POSIX_SPAWN_DUP2, null.fileno(), 1),
                                            (os.POSIX_SPAWN_DUP2, null.fileno(), 2)])
        _, status, usage = os.wait4(pid, 0)
        wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        sys.exit(f"measure.py: {' '.join(argv)} exited with {code}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def commands_of(args):
    """The commands of `args`, split at each --next."""
    commands = [[]]
    for arg in args:
        if arg == "--next":
            commands.append([])
        else:
            commands[-1].append(arg)
    if any(not command for command in commands):
        sys.exit(__doc__)
    return commands


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    runs = int(sys.argv[1])
    commands = commands_of(sys.argv[2:])
    results = [[] for _ in commands]
    for _ in range(runs):
        for i, command in enumerate(commands):
            results[i].append(run_once(command))
    for runs_of_one in results:
        wall, cpu, rss = (statistics.median_low(column) for column in zip(*runs_of_one))
        best = min(result[0] for result in runs_of_one)
        print(f"{wall:.4f} {cpu:.3f} {rss} {best:.4f}")


if __name__ == "__main__":
    main()
