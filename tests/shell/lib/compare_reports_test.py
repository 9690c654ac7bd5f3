#!/usr/bin/env python3
"""Tests compare_reports.py on small reports written here: what it must
accept (masked addresses, ties trading places, perf's split unknown entry
against its merged copy) and what it must refuse (a lost entry, another
percentage, another order, another symbol)."""
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))

BASE = """\
    40.00%    40.00%  prog              [.] main
    20.00%     5.00%  libc.so.6         [.] qsort
    10.00%    10.00%  [unknown]         [.] 0x00007f0000001000
     5.00%     5.00%  prog              [.] helper
     5.00%     0.00%  [unknown]         [.] 0x00007f0000002000
"""


class CompareReportsTest(unittest.TestCase):
    def compare(self, expected, actual):
        with tempfile.TemporaryDirectory() as d:
            paths = []
            for name, text in (("in", expected), ("out", actual)):
                paths.append(os.path.join(d, name))
                with open(paths[-1], "w") as f:
                    f.write(text)
            run = subprocess.run([sys.executable, os.path.join(HERE, "compare_reports.py")] + paths,
                                 capture_output=True, text=True)
            return run.returncode

    def test_same_report_but_unknown_addresses(self):
        moved = BASE.replace("0x00007f0000001000", "0x0000300000000000")
        self.assertEqual(self.compare(BASE, moved), 0)

    def test_ties_may_trade_places(self):
        lines = BASE.splitlines(keepends=True)
        swapped = lines[:3] + [lines[4], lines[3]]
        self.assertEqual(self.compare(BASE, "".join(swapped)), 0)

    def test_split_unknown_entry_equals_its_merged_copy(self):
        split = BASE.replace(
            "     5.00%     0.00%  [unknown]         [.] 0x00007f0000002000\n",
            "     3.00%     0.00%  [unknown]         [.] 0x00007f0000002000\n"
            "     2.00%     0.00%  [unknown]         [.] 0x00007f0000002000\n")
        self.assertEqual(self.compare(split, BASE), 0)
        self.assertEqual(self.compare(BASE, split), 0)

    def test_split_parts_must_add_up(self):
        split = BASE.replace(
            "     5.00%     0.00%  [unknown]         [.] 0x00007f0000002000\n",
            "     3.00%     0.00%  [unknown]         [.] 0x00007f0000002000\n"
            "     1.00%     0.00%  [unknown]         [.] 0x00007f0000002000\n")
        self.assertEqual(self.compare(split, BASE), 1)

    def test_lost_entry_is_refused(self):
        lost = "".join(BASE.splitlines(keepends=True)[:4])
        self.assertEqual(self.compare(BASE, lost), 1)

    def test_other_percentage_is_refused(self):
        self.assertEqual(self.compare(BASE, BASE.replace("20.00%", "21.00%")), 1)

    def test_other_order_is_refused(self):
        lines = BASE.splitlines(keepends=True)
        swapped = [lines[1], lines[0]] + lines[2:]
        self.assertEqual(self.compare(BASE, "".join(swapped)), 1)

    def test_other_symbol_is_refused(self):
        self.assertEqual(self.compare(BASE, BASE.replace("helper", "helper2")), 1)

    def test_two_known_entries_are_never_merged(self):
        doubled = BASE.replace(
            "    40.00%    40.00%  prog              [.] main\n",
            "    20.00%    20.00%  prog              [.] main\n"
            "    20.00%    20.00%  prog              [.] main\n")
        self.assertEqual(self.compare(BASE, doubled), 1)


if __name__ == "__main__":
    unittest.main()
