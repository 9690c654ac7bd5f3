#!/usr/bin/env python3
"""own_bodies.py IN OUT: an LLVM text sample profile reduced to each
function's own body lines (inlined calls and their nested profiles left
out, totals recomputed), to compare two profiles on what both hold: the
bodies of the functions, whatever each kept of the inlined calls."""
import re
import sys

out, function, body = [], None, []


def flush():
    if function is not None and body:
        out.append(f'{function[0]}:{sum(count for _, count in body)}:{function[1]}')
        out.extend(line for line, _ in body)


for line in open(sys.argv[1]):
    line = line.rstrip('\n')
    top = re.match(r'^([^ ].*):(\d+):(\d+)$', line)
    if top:
        flush()
        function, body = (top.group(1), top.group(3)), []
        continue
    own = re.match(r'^ (\d+(?:\.\d+)?): (\d+)( .*)?$', line)
    if own:
        body.append((line, int(own.group(2))))
flush()
open(sys.argv[2], 'w').write('\n'.join(out) + '\n')
