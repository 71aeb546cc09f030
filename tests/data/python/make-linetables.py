# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# make-linetables.py - the line tables of real code objects, with the line
# CPython itself gives each code unit, for test_pycode.c.
# Usage: PYTHON make-linetables.py > linetables-3.X.txt (3.11 or later)
# One code object per line: FIRSTLINENO HEX_LINETABLE LINE,LINE,... (a
# line per code unit; 0 where CPython has none).
import argparse, json.encoder, re._parser, sys

def codes(co):
    yield co
    for c in co.co_consts:
        if hasattr(c, "co_linetable"):
            yield from codes(c)

n = 0
for mod in (re._parser, json.encoder, argparse):
    src = open(mod.__file__).read()
    for co in codes(compile(src, mod.__file__, "exec")):
        pos = list(co.co_positions())
        assert len(pos) == len(co.co_code) // 2
        lines = ",".join(str(p[0] or 0) for p in pos)
        print(co.co_firstlineno, co.co_linetable.hex(), lines)
        n += 1
        if n >= 120:
            sys.exit(0)
