# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# pychain.py SECONDS - Python calls with known callers, for the Python
# frame tests: main -> held_outer -> held_middle -> held_leaf, and
# main -> recurse x31 -> deep_leaf.
import sys
import time


def held_leaf(n):
    s = 0
    for i in range(n):
        s += i * i
    return s


def held_middle(n):
    return held_leaf(n)


def held_outer(n):
    return held_middle(n)


def deep_leaf(n):
    s = 0
    for i in range(n):
        s ^= i
    return s


def recurse(depth, n):
    return recurse(depth - 1, n) if depth else deep_leaf(n)


def main():
    end = time.monotonic() + float(sys.argv[1])
    while time.monotonic() < end:
        held_outer(20000)
        recurse(30, 20000)


main()
