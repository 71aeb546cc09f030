# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# unwindwork.py - a fixed amount of CPU-bound Python for bench/unwind: a
# recursion a few levels deep (so the interpreter's C stack is deep: one
# _PyEval_EvalFrameDefault per Python call that is not inlined) ending in
# dict, string and arithmetic work. Usage: python3 unwindwork.py [ROUNDS]
# (default 240). Prints "wall_ns cpu_ns" of the work alone, as benchwork
# does, so interpreter start-up is not counted as slowdown.
import sys
import time


def leaf(n):
    d = {}
    for i in range(n):
        d[i % 97] = d.get(i % 97, 0) + i * i
    return sum(d.values()) + len(str(n) * 10)


def walk(depth, n):
    if depth == 0:
        return leaf(n)
    return walk(depth - 1, n) + depth


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 240
    w0, c0 = time.perf_counter_ns(), time.process_time_ns()
    acc = 0
    for r in range(rounds):
        acc += sorted(walk(8 + r % 8, 20000 + r) for _ in range(4))[0] & 0xFF
    w1, c1 = time.perf_counter_ns(), time.process_time_ns()
    print(w1 - w0, c1 - c0)
    return acc


if __name__ == "__main__":
    main()
