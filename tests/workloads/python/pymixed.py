# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# pymixed.py SECONDS - two named threads (py-alpha, py-beta) in their own
# functions, a third (py-async) running coroutines on an asyncio loop, and
# the main thread in a generator, json and re (C code called from Python),
# for the Python frame tests.
import asyncio
import ctypes
import json
import re
import sys
import threading
import time

libc = ctypes.CDLL(None)


def name_thread(name):
    libc.prctl(15, name.encode(), 0, 0, 0)  # PR_SET_NAME: the comm


def alpha_loop(end):
    name_thread("py-alpha")
    while time.monotonic() < end:
        s = 0
        for i in range(5000):
            s += i


def beta_loop(end):
    name_thread("py-beta")
    while time.monotonic() < end:
        s = 1
        for i in range(5000):
            s ^= i


async def coro_leaf(end):
    s = 0
    for i in range(20000):
        s += i
    await asyncio.sleep(0)
    return s


async def coro_middle(end):
    while time.monotonic() < end:
        await coro_leaf(end)


async def coro_outer(end):
    await asyncio.gather(coro_middle(end))


def async_thread(end):
    name_thread("py-async")
    asyncio.run(coro_outer(end))


def gen_values(n):
    for i in range(n):
        yield i * 3


def consume_generator():
    return sum(v for v in gen_values(20000))


def json_work():
    return json.dumps([{"k": i, "v": [i, i + 1, str(i)]} for i in range(2000)])


def regex_work():
    return len(re.findall(r"(a|b)+c", "ab" * 20000 + "c"))


def main():
    end = time.monotonic() + float(sys.argv[1])
    threads = [threading.Thread(target=f, args=(end,)) for f in (alpha_loop, beta_loop, async_thread)]
    for t in threads:
        t.start()
    while time.monotonic() < end:
        consume_generator()
        json_work()
        regex_work()
    for t in threads:
        t.join()


main()
