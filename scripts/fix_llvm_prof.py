#!/usr/bin/env python3
"""Makes the text sample profile of Debian's create_llvm_prof 0.19 readable by
clang 14. On optimized code that version writes many names (inlined callees,
call targets, even functions) as bytes of freed memory: `NAME\\0junk`, junk
from the first byte (newlines included), or a name cut short. Here each name
is cut at its first NUL; a function or inlined callsite whose name is then
not one of the binary's (DWARF subprogram names on argv[3], one a line) is
dropped with every line nested under it, such a call target is dropped from
its line; a name cut short is completed when exactly one of the binary's
names starts with it. Usage: fix_llvm_prof.py IN OUT NAMES"""
import re
import sys

src, dst, names_file = sys.argv[1:4]
names = set(open(names_file).read().split())
ident = re.compile(r'^[A-Za-z_][A-Za-z0-9_.]*$')
head = re.compile(rb'^( +)(\d+(?:\.\d+)?): (.*)$', re.S)
top = re.compile(rb'^([^ ].*):(\d+):(\d+)$', re.S)
stats = {'dropped': 0, 'completed': 0}


def known(raw):
    """The binary's name raw stands for, or None."""
    text = raw.split(b'\0')[0].decode('latin-1')
    if not ident.match(text):
        return None
    if text in names:
        return text
    full = [n for n in names if n.startswith(text)]
    if len(full) == 1:
        stats['completed'] += 1
        return full[0]
    return None


# Junk names may hold newlines: a line that starts no record continues one.
records = []
for line in open(src, 'rb').read().split(b'\n'):
    if records and not head.match(line) and not top.match(line) and line:
        records[-1] += b'\n' + line
    else:
        records.append(line)

out, skip_deeper = [], None
for rec in records:
    indent = len(rec) - len(rec.lstrip(b' '))
    if skip_deeper is not None:
        if rec and indent > skip_deeper:
            continue
        skip_deeper = None
    m = top.match(rec)
    if m:
        name = known(m.group(1))
        if name is None:
            stats['dropped'] += 1
            skip_deeper = 0
            continue
        out.append(f'{name}:{int(m.group(2))}:{int(m.group(3))}')
        continue
    m = head.match(rec)
    if not m:
        # Junk that starts no record (after an empty line, say): neither it
        # nor what is nested under it can be trusted.
        if rec:
            stats['dropped'] += 1
            skip_deeper = indent
        continue
    pad, loc, rest = m.group(1).decode(), m.group(2).decode(), m.group(3)
    body = re.match(rb'^(\d+)((?: .*)?)$', rest, re.S)
    if body:  # NUM[ target:NUM]*: drop the targets that are junk
        targets = []
        for t in re.findall(rb' (.+?):(\d+)(?= |$)', body.group(2), re.S):
            name = known(t[0])
            if name is None:
                stats['dropped'] += 1
            else:
                targets.append(f' {name}:{int(t[1])}')
        out.append(f'{pad}{loc}: {int(body.group(1))}{"".join(targets)}')
        continue
    call = re.match(rb'^(.*):(\d+)$', rest, re.S)
    name = known(call.group(1)) if call else None
    if name is None:
        stats['dropped'] += 1
        skip_deeper = indent
        continue
    out.append(f'{pad}{loc}: {name}:{int(call.group(2))}')
open(dst, 'w').write(''.join(line + '\n' for line in out))
print(f"{stats['dropped']} junk names dropped, {stats['completed']} completed")
