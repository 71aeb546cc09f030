# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# pyexec.py SECONDS - Python that execs Python: before_exec_leaf runs for
# SECONDS, then the process replaces itself (same pid) with the same
# interpreter running pychain.py for SECONDS. Both halves must be named:
# the interpreter trapd walks after the exec is mapped elsewhere.
import os
import sys
import time


def before_exec_leaf(n):
    s = 0
    for i in range(n):
        s -= i
    return s


def main():
    end = time.monotonic() + float(sys.argv[1])
    while time.monotonic() < end:
        before_exec_leaf(20000)
    chain = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pychain.py")
    os.execv(sys.executable, [sys.executable, chain, sys.argv[1]])


main()
