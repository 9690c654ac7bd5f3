#!/usr/bin/env python3
"""Makes the text sample profile of Debian's create_llvm_prof 0.19 readable by
clang 14. On optimized code that version writes many names (inlined callees,
call targets, even functions) as bytes of freed memory: `NAME\\0junk`, junk
from the first byte (newlines included), or a name cut short. Here each name
is cut at its first NUL; a function or inlined callsite whose name is then
not one of the binary's (DWARF subprogram names on argv[3], one a line) is
dropped with every line nested under it, such a call target is dropped from
its line; a name cut short is completed when exactly one of the binary's
names starts with it. Usage: fix_llvm_prof.py IN OUT NAMES

A count clang's reader would refuse (it reads counts as 64-bit unsigned
numbers), that is of more than 20 digits or above 2**64-1, makes its record
malformed: it is dropped as junk is, a function with its body, a body line or
inlined callsite with what is nested under it, a call target from its line.
No count is clamped.

Files are bytes. A name in the profile must be an identifier after the NUL
cut, so one holding bytes that are not ASCII (not UTF-8, say) is junk. The
names file is read as UTF-8 with surrogateescape and OUT written the same way:
a binary's name that is not valid UTF-8 goes through byte for byte, as clang's
reader takes a function name as the bytes before its colons.

OUT is written beside itself (OUT.tmp.PID, in OUT's directory once symbolic
links are followed), flushed to disk and renamed over OUT once whole, keeping
OUT's permissions; on an error OUT is left as it was and the temporary file
is removed. (An OUT that exists and is no regular file, /dev/stdout say, is
written directly.) An error is one line on stderr, `fix_llvm_prof.py: FILE:
what is wrong`, and exit status 1; Ctrl-C ends it as SIGINT does (130).

Time is linear in the size of IN (n log n in that of NAMES)."""
import bisect
import os
import re
import signal
import stat
import sys

PROG = 'fix_llvm_prof.py'
COUNT_MAX = 2**64 - 1
ident = re.compile(r'^[A-Za-z_][A-Za-z0-9_.]*$')
head = re.compile(rb'^( +)(\d+(?:\.\d+)?): (.*)$', re.S)
top = re.compile(rb'^([^ ].*):(\d+):(\d+)$', re.S)
body_line = re.compile(rb'^(\d+)((?: .*)?)$', re.S)
call_line = re.compile(rb'^(.*):(\d+)$', re.S)
target = re.compile(rb' (.+?):(\d+)(?= |$)', re.S)
target_end = re.compile(rb':\d+(?= |$)')


class Failure(Exception):
    """What is wrong with file: the one line an error prints."""

    def __init__(self, file, what):
        super().__init__(f'{file}: {what}' if file is not None else what)


def count(digits):
    """The count the ASCII digits stand for, or None if clang would refuse
    it (never int() on more than 20 digits: Python refuses 4301 and more)."""
    if len(digits) > 20:
        return None
    n = int(digits)
    return n if n <= COUNT_MAX else None


def targets_of(tail):
    """re.findall(target, tail) in linear time. A match from a space ends at
    the first `:DIGITS` followed by a space or the end at least two bytes on,
    so once a space starts none, no later one does: findall then tried each
    remaining space to the end, quadratic on long junk. Past the last
    `:DIGITS` no match can end; cutting the tail there leaves findall the
    same matches, and a start that fails only in the cut's last digits."""
    last = None
    for last in target_end.finditer(tail):
        pass
    return target.findall(tail[:last.end()]) if last else []


class Names:
    """The binary's names: exact ones, and completion of a prefix."""

    def __init__(self, data):
        self.set = set(data.decode('utf-8', 'surrogateescape').split())
        self.sorted = sorted(self.set)
        self.completed = 0

    def known(self, raw):
        """The binary's name raw stands for, or None."""
        text = raw.partition(b'\0')[0].decode('latin-1')
        if not ident.match(text):
            return None
        if text in self.set:
            return text
        # The names starting with text sort together, from where text would.
        i = bisect.bisect_left(self.sorted, text)
        if (i < len(self.sorted) and self.sorted[i].startswith(text) and
                (i + 1 == len(self.sorted) or
                 not self.sorted[i + 1].startswith(text))):
            self.completed += 1
            return self.sorted[i]
        return None


def fix(data, names):
    """The repaired profile's lines, and what was dropped."""
    stats = {'dropped': 0, 'bad': 0}
    # Junk names may hold newlines: a line that starts no record continues
    # one (joined at the end: adding to a bytes object copies it).
    records = []
    for line in data.split(b'\n'):
        if records and line and not head.match(line) and not top.match(line):
            records[-1].append(line)
        else:
            records.append([line])

    out, skip_deeper = [], None
    for rec in (b'\n'.join(r) for r in records):
        indent = len(rec) - len(rec.lstrip(b' '))
        if skip_deeper is not None:
            if rec and indent > skip_deeper:
                continue
            skip_deeper = None
        m = top.match(rec)
        if m:
            total, entry = count(m.group(2)), count(m.group(3))
            if total is None or entry is None:
                stats['bad'] += 1
                skip_deeper = 0
                continue
            name = names.known(m.group(1))
            if name is None:
                stats['dropped'] += 1
                skip_deeper = 0
                continue
            out.append(f'{name}:{total}:{entry}')
            continue
        m = head.match(rec)
        if not m:
            # Junk that starts no record (after an empty line, say): neither
            # it nor what is nested under it can be trusted.
            if rec:
                stats['dropped'] += 1
                skip_deeper = indent
            continue
        pad, loc, rest = m.group(1).decode(), m.group(2).decode(), m.group(3)
        body = body_line.match(rest)
        if body:  # NUM[ target:NUM]*: drop the targets that are junk
            n = count(body.group(1))
            if n is None:
                stats['bad'] += 1
                skip_deeper = indent
                continue
            targets = []
            for t in targets_of(body.group(2)):
                calls = count(t[1])
                if calls is None:
                    stats['bad'] += 1
                    continue
                name = names.known(t[0])
                if name is None:
                    stats['dropped'] += 1
                else:
                    targets.append(f' {name}:{calls}')
            out.append(f'{pad}{loc}: {n}{"".join(targets)}')
            continue
        call = call_line.match(rest)
        n = count(call.group(2)) if call else None
        if call and n is None:
            stats['bad'] += 1
            skip_deeper = indent
            continue
        name = names.known(call.group(1)) if call else None
        if name is None:
            stats['dropped'] += 1
            skip_deeper = indent
            continue
        out.append(f'{pad}{loc}: {name}:{n}')
    return out, stats


def read(path):
    try:
        with open(path, 'rb') as f:
            return f.read()
    except OSError as e:
        raise Failure(path, f'cannot read: {e.strerror or e}') from None


def replace(path, data):
    """Puts data in path: in a temporary file beside it renamed over it once
    whole, the temporary file removed on any error (Ctrl-C included)."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        st = None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise Failure(path, 'is a directory')
    if st is not None and not stat.S_ISREG(st.st_mode):
        with open(path, 'wb') as f:  # a device or FIFO: nothing to replace
            f.write(data)
        return
    real = os.path.realpath(path)  # a symbolic link stays one
    tmp = f'{real}.tmp.{os.getpid()}'
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC,
                     0o666)
    except FileExistsError:
        raise Failure(path, f'{tmp} is in the way') from None
    try:
        with open(fd, 'wb') as f:
            if st is not None:
                os.fchmod(f.fileno(), stat.S_IMODE(st.st_mode))
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.rename(tmp, real)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def main(argv):
    if len(argv) < 4:
        raise Failure(None, 'usage: fix_llvm_prof.py IN OUT NAMES')
    src, dst, names_file = argv[1:4]
    names = Names(read(names_file))
    data = read(src)
    try:
        out, stats = fix(data, names)
    except Exception as e:  # MemoryError, say; never a traceback
        raise Failure(src, f'cannot repair: {type(e).__name__}: {e}') from None
    text = ''.join(line + '\n' for line in out)
    try:
        replace(dst, text.encode('utf-8', 'surrogateescape'))
    except OSError as e:
        raise Failure(dst, f'cannot write: {e.strerror or e}') from None
    bad = stats['bad']
    bad = f', {bad} counts out of range dropped' if bad else ''
    print(f"{stats['dropped']} junk names dropped, {names.completed} completed"
          + bad)


if __name__ == '__main__':
    try:
        main(sys.argv)
    except Failure as e:
        print(f'{PROG}: {e}', file=sys.stderr)
        sys.exit(1)
    except KeyboardInterrupt:
        # Die of SIGINT, so that a shell sees 130 and stops a loop.
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
        sys.exit(130)
    except OSError as e:  # stdout gone, say: OUT is written by then
        print(f'{PROG}: stdout: {e.strerror or e}', file=sys.stderr)
        # What print left buffered would fail again at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)
