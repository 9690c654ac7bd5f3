#!/usr/bin/env python3
"""Tests scripts/fix_llvm_prof.py on small profiles shaped like what Debian's
create_llvm_prof 0.19 writes on optimized code: names followed by freed bytes,
junk holding newlines, junk after an empty line, names cut short. What comes
out must hold only records clang's text reader accepts, and keep every sound
record."""
import os
import re
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.path.join(HERE, '..', 'scripts', 'fix_llvm_prof.py')
NAMES = ['main', 'luaV_execute', 'luaH_get', 'luaD_call']
TOP = re.compile(r'^[A-Za-z_][A-Za-z0-9_.]*:\d+:\d+$')
BODY = re.compile(r'^ +\d+(\.\d+)?: (\d+( [A-Za-z_][A-Za-z0-9_.]*:\d+)*'
                  r'|[A-Za-z_][A-Za-z0-9_.]*:\d+)$')


class FixLlvmProfTest(unittest.TestCase):
    def fix(self, raw):
        with tempfile.TemporaryDirectory() as d:
            src, dst, names = (os.path.join(d, n) for n in ('in', 'out', 'n'))
            with open(src, 'wb') as f:
                f.write(raw)
            with open(names, 'w') as f:
                f.write('\n'.join(NAMES) + '\n')
            run = subprocess.run([sys.executable, FIX, src, dst, names],
                                 capture_output=True, text=True)
            self.assertEqual(run.returncode, 0, run.stderr)
            with open(dst) as f:
                lines = f.read().split('\n')
        self.assertEqual(lines[-1], '', 'the profile ends with a newline')
        for line in lines[:-1]:
            self.assertTrue(TOP.match(line) or BODY.match(line),
                            f'not a record clang reads: {line!r}')
        return lines[:-1]

    def test_sound_profile_is_kept(self):
        raw = (b'main:100:1\n 1: 10\n 2: 20 luaD_call:5\n'
               b' 3: luaH_get:7\n  1: 7\n')
        self.assertEqual(self.fix(raw), raw.decode().split('\n')[:-1])

    def test_name_followed_by_freed_bytes_is_cut(self):
        raw = b'main\x00\xa1x:100:1\n 1: 10 luaD_call\x00zz:3\n'
        self.assertEqual(self.fix(raw), ['main:100:1', ' 1: 10 luaD_call:3'])

    def test_junk_function_is_dropped_with_its_body(self):
        raw = b'\xa1\xa2:50:1\n 1: 5\n 2: luaH_get:3\n  1: 3\nmain:9:1\n 1: 9\n'
        self.assertEqual(self.fix(raw), ['main:9:1', ' 1: 9'])

    def test_junk_inline_is_dropped_with_what_it_holds(self):
        raw = b'main:9:1\n 2: \x01\xff:3\n  1: 3\n 3: 6\n'
        self.assertEqual(self.fix(raw), ['main:9:1', ' 3: 6'])

    def test_junk_call_target_is_dropped_from_its_line(self):
        raw = b'main:9:1\n 1: 9 \xa1U:4 luaD_call:5\n'
        self.assertEqual(self.fix(raw), ['main:9:1', ' 1: 9 luaD_call:5'])

    def test_junk_with_newline_in_a_name(self):
        raw = b'main:9:1\n 2: luaD\x00\n!x:3\n  1: 3\n 3: 6\n'
        self.assertEqual(self.fix(raw), ['main:9:1', ' 2: luaD_call:3',
                                         '  1: 3', ' 3: 6'])

    def test_junk_after_an_empty_line(self):
        # What CI met: an empty line, then junk starting no record.
        raw = b'main:9:1\n 1: 9\n\n!\xa1U\n 2: 4\nluaH_get:3:1\n 1: 3\n'
        self.assertEqual(self.fix(raw), ['main:9:1', ' 1: 9',
                                         'luaH_get:3:1', ' 1: 3'])

    def test_name_cut_short_is_completed_when_unique(self):
        raw = b'luaV_exe:9:1\n 1: 9 luaH:2\n'
        self.assertEqual(self.fix(raw), ['luaV_execute:9:1', ' 1: 9 luaH_get:2'])

    def test_ambiguous_prefix_is_dropped(self):
        raw = b'lua:9:1\n 1: 9\nmain:1:1\n 1: 1\n'
        self.assertEqual(self.fix(raw), ['main:1:1', ' 1: 1'])


if __name__ == '__main__':
    unittest.main()
